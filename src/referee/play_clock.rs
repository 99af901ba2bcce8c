//! A play clock as the referee gives it: whole seconds to GGP players (START carries
//! whole seconds), any number of milliseconds to in-process agents, so that a hundred
//! quick games of an engine take minutes rather than hours.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A play clock, whole milliseconds from 10 ms to an hour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayClock {
    ms: u64,
}

impl PlayClock {
    const MIN_MS: u64 = 10;
    const MAX_MS: u64 = 3_600_000;

    pub fn from_secs(secs: u64) -> PlayClock {
        PlayClock { ms: secs * 1000 }
    }

    /// Reads seconds, whole (`10`) or not (`0.25`).
    pub fn parse(text: &str) -> Result<PlayClock, String> {
        let secs: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("{text:?} is not a number of seconds"))?;
        let ms = (secs * 1000.0).round();
        if !(Self::MIN_MS as f64..=Self::MAX_MS as f64).contains(&ms) {
            return Err(format!(
                "{text:?}: a play clock is from 0.01 to 3600 seconds"
            ));
        }
        Ok(PlayClock { ms: ms as u64 })
    }

    pub fn duration(self) -> Duration {
        Duration::from_millis(self.ms)
    }

    /// The clock in whole seconds, as a GGP START carries it; `None` if it is not whole.
    pub fn whole_secs(self) -> Option<u64> {
        self.ms.is_multiple_of(1000).then_some(self.ms / 1000)
    }

    fn secs(self) -> f64 {
        self.ms as f64 / 1000.0
    }
}

impl fmt::Display for PlayClock {
    /// Seconds, as given: `10`, `0.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.whole_secs() {
            Some(s) => write!(f, "{s}"),
            None => write!(f, "{}", self.secs()),
        }
    }
}

/// Seconds in results files, whole ones as integers: records written before clocks could
/// be fractions read the same.
impl Serialize for PlayClock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.whole_secs() {
            Some(secs) => s.serialize_u64(secs),
            None => s.serialize_f64(self.secs()),
        }
    }
}

impl<'de> Deserialize<'de> for PlayClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PlayClock, D::Error> {
        let secs = f64::deserialize(d)?;
        PlayClock::parse(&secs.to_string()).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_and_write_as_seconds() {
        let quarter = PlayClock::parse("0.25").unwrap();
        assert_eq!(quarter.duration(), Duration::from_millis(250));
        assert_eq!(
            (quarter.to_string(), quarter.whole_secs()),
            ("0.25".into(), None)
        );
        let ten = PlayClock::parse("10").unwrap();
        assert_eq!((ten.to_string(), ten.whole_secs()), ("10".into(), Some(10)));
        assert_eq!(ten, PlayClock::from_secs(10));
        for bad in ["0", "0.001", "-1", "3601", "soon", ""] {
            assert!(PlayClock::parse(bad).is_err(), "{bad:?}");
        }
        // Whole seconds stay integers in results files, as before fractions existed.
        assert_eq!(serde_json::to_string(&ten).unwrap(), "10");
        assert_eq!(serde_json::to_string(&quarter).unwrap(), "0.25");
        let back: PlayClock = serde_json::from_str("1").unwrap();
        assert_eq!(back, PlayClock::from_secs(1));
        let back: PlayClock = serde_json::from_str("0.25").unwrap();
        assert_eq!(back, quarter);
    }
}
