//! DP-DF.
