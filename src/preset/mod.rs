//! The fabric preset file.
