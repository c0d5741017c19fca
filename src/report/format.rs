//! Number formatting for table cells.
//!
//! The papers print regression errors in scientific notation with three significant
//! digits and a signed exponent without leading zeros (LPDT Table 2: `1.01e+1`,
//! `2.12e-2`, `4.08e-27`), and accuracies or running times with a fixed number of
//! decimals (LPCT Tables 2 and 3).

/// Formats `v` in scientific notation with three significant digits, as the papers do.
///
/// The mantissa has one digit before the point and two after; the exponent always has a
/// sign and no leading zeros. Rounding is to nearest on the exact binary value and
/// carries into the exponent (`9.996` → `1.00e+1`).
///
/// | input | output |
/// | --- | --- |
/// | `10.1` | `1.01e+1` |
/// | `0.0212` | `2.12e-2` |
/// | `175000.0` | `1.75e+5` |
/// | `4.08e-27` | `4.08e-27` |
/// | `0.0` or `-0.0` | `0.00e+0` |
/// | `-3.5` | `-3.50e+0` |
/// | NaN | `nan` |
/// | ±∞ | `inf` / `-inf` |
///
/// ```
/// use dp_repro::report::format_sci;
/// assert_eq!(format_sci(10.1), "1.01e+1");
/// assert_eq!(format_sci(0.0212), "2.12e-2");
/// assert_eq!(format_sci(9.996), "1.00e+1");
/// ```
pub fn format_sci(v: f64) -> String {
    if let Some(s) = non_finite(v) {
        return s;
    }
    if v == 0.0 {
        // Also catches -0.0: a signed zero carries no information in a table.
        return "0.00e+0".to_string();
    }
    // Rust's `{:.2e}` rounds the exact binary value to 3 significant digits and carries
    // into the exponent; it prints the exponent as `1`, `-2`, `-27` (no `+`, no padding).
    let s = format!("{:.2e}", v);
    let (mantissa, exponent) = s
        .split_once('e')
        .expect("LowerExp output of a finite f64 always contains `e`");
    if exponent.starts_with('-') {
        format!("{mantissa}e{exponent}")
    } else {
        format!("{mantissa}e+{exponent}")
    }
}

/// Formats `v` with exactly `decimals` digits after the decimal point (accuracies,
/// running times in seconds).
///
/// Rounding is to nearest on the exact binary value. A result that rounds to zero is
/// printed without a minus sign (`-0.0001` with 2 decimals → `0.00`). NaN prints as
/// `nan`, ±∞ as `inf` / `-inf`.
///
/// ```
/// use dp_repro::report::format_fixed;
/// assert_eq!(format_fixed(0.91234, 3), "0.912");
/// assert_eq!(format_fixed(12.5, 0), "12");
/// assert_eq!(format_fixed(-0.0001, 2), "0.00");
/// ```
pub fn format_fixed(v: f64, decimals: usize) -> String {
    if let Some(s) = non_finite(v) {
        return s;
    }
    let s = format!("{:.*}", decimals, v);
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// `nan`, `inf` or `-inf` for non-finite values, `None` otherwise.
fn non_finite(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("nan".to_string())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "inf" } else { "-inf" }.to_string())
    } else {
        None
    }
}
