//! GGP request parsing (being written).
