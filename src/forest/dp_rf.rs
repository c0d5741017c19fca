//! DP-RF.
