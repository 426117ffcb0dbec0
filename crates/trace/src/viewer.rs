//! Save files for wave viewers.
