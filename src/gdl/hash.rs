//! A small, fast, non-cryptographic hasher for the reasoner's maps, and for the maps of
//! the network and the search tree that are read at every step.
//!
//! The keys are term ids, move numbers and pre-mixed 64-bit hashes that we compute
//! ourselves, never attacker-chosen strings of unbounded variety, so a multiply-rotate
//! hash is good enough and much faster than SipHash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Odd 64-bit constant with well-spread bits (from the golden ratio).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Mixes one word into a running hash.
#[inline(always)]
pub(crate) fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(26) ^ word).wrapping_mul(SEED)
}

/// Final avalanche so that the low and the high bits both depend on every input bit.
#[inline(always)]
pub(crate) fn finish(hash: u64) -> u64 {
    let h = hash ^ (hash >> 29);
    let h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher {
    hash: u64,
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let word = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.hash = mix(self.hash, word);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.hash = mix(
                self.hash,
                u64::from_le_bytes(buf) ^ (rest.len() as u64) << 56,
            );
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.hash = mix(self.hash, i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.hash = mix(self.hash, i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.hash = mix(self.hash, i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.hash = mix(self.hash, i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        finish(self.hash)
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub(crate) type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(t)
    }

    #[test]
    fn different_slices_hash_differently() {
        let a: &[u32] = &[1, 2, 3];
        let b: &[u32] = &[1, 2, 4];
        let c: &[u32] = &[1, 2];
        assert_ne!(hash_of(a), hash_of(b));
        assert_ne!(hash_of(a), hash_of(c));
        assert_eq!(hash_of(a), hash_of(&[1u32, 2, 3][..]));
        assert_ne!(hash_of("abc"), hash_of("abd"));
    }
}
