//! KIF / S-expression reading and printing (being written).
