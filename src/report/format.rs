//! Number formatting for table cells.
//!
//! The papers print regression errors in scientific notation with three significant
//! digits and a signed exponent without leading zeros (LPDT Table 2: `1.01e+1`,
//! `2.12e-2`, `4.08e-27`), and accuracies or running times with a fixed number of
//! decimals (LPCT Tables 2 and 3). The HistOfTree tables print MSE ratios with a
//! precision that falls with the magnitude (`1.85`, `22.6`, `7e2`). The DiPriMe tables
//! print scaled means with three significant digits in fixed point (`40.7`, `241`) and a
//! "±" with as many decimals as the mean (`40.7 ± 6.2`).

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

/// Formats an MSE ratio as the HistOfTree tables print it (method card `histoftree.md`
/// §10; `histoftree_tables.csv`): below 10 with two decimals (`1.85`), from 10 to below
/// 100 with one (`22.6`, `19.0`), from 100 on with one significant digit and a bare
/// exponent (`7e2`, `1e4`, `9e5`).
///
/// The magnitude class is decided after rounding, so a value never prints with more
/// digits than its class allows (`9.996` → `10.0`, `99.96` → `1e2`). Rounding is to
/// nearest on the exact binary value. Negative values print as the negated absolute value
/// (ratios are positive; this only keeps the function total); a result that rounds to
/// zero prints as `0.00`. NaN prints as `nan`, ±∞ as `inf` / `-inf`. Every finite output
/// parses back with `str::parse::<f64>()`, which is how the table ranks printed values.
///
/// ```
/// use dp_repro::report::format_ratio;
/// assert_eq!(format_ratio(1.8512), "1.85");
/// assert_eq!(format_ratio(22.64), "22.6");
/// assert_eq!(format_ratio(712.0), "7e2");
/// assert_eq!(format_ratio(9.996), "10.0");
/// ```
pub fn format_ratio(v: f64) -> String {
    if let Some(s) = non_finite(v) {
        return s;
    }
    let a = v.abs();
    let two = format!("{a:.2}");
    let text = if two.parse::<f64>().is_ok_and(|x| x < 10.0) {
        two
    } else {
        let one = format!("{a:.1}");
        if one.parse::<f64>().is_ok_and(|x| x < 100.0) {
            one
        } else {
            // LowerExp with no decimals: `7e2`, `1e4`; the rounding carries into the exponent.
            format!("{a:.0e}")
        }
    };
    if v < 0.0 && text != "0.00" {
        format!("-{text}")
    } else {
        text
    }
}

/// The number of decimals that prints `v` with `digits` significant digits in fixed point
/// (at least 0), decided after rounding so a carry does not add a digit (`9.996` with 3
/// digits → 1 decimal, `10.0`). Zero and non-finite values get `digits − 1` decimals.
pub fn significant_decimals(v: f64, digits: usize) -> usize {
    let digits = digits.max(1);
    if v == 0.0 || !v.is_finite() {
        return digits - 1;
    }
    // LowerExp rounds to `digits` significant digits and carries into the exponent.
    let s = format!("{:.*e}", digits - 1, v.abs());
    let exponent: i64 = s
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .expect("LowerExp output of a finite f64 has an integer exponent");
    (digits as i64 - 1 - exponent).max(0) as usize
}

/// Formats `v` in fixed point with `digits` significant digits, as the DiPriMe paper
/// prints its scaled MSEs (`1.59`, `40.7`, `241`, `9.60`; method card `docs/methods/diprime.md` §11);
/// values from `10^digits` to below 10⁵ print with no decimals and all their integer
/// digits (`8620`, `21300`).
///
/// An exponent only where fixed point would be longer than it: a value whose magnitude,
/// after rounding to `digits` significant digits, is 10⁵ or more or below 10⁻³ prints
/// in the LPDT paper's scientific notation with `digits` significant digits (`1.49e+6`,
/// `4.08e-27`; see [`format_sci`] for three). Zero prints in fixed point (`0.00`).
/// Rounding is to nearest on the exact binary value; NaN prints as `nan`, ±∞ as `inf` /
/// `-inf`.
///
/// ```
/// use dp_repro::report::format_significant;
/// assert_eq!(format_significant(1.5875, 3), "1.59");
/// assert_eq!(format_significant(40.676, 3), "40.7");
/// assert_eq!(format_significant(240.73, 3), "241");
/// assert_eq!(format_significant(9.6046, 3), "9.60");
/// assert_eq!(format_significant(9.996, 3), "10.0");
/// assert_eq!(format_significant(0.02123, 3), "0.0212");
/// assert_eq!(format_significant(1_490_000.0, 3), "1.49e+6");
/// assert_eq!(format_significant(4.08e-27, 3), "4.08e-27");
/// ```
pub fn format_significant(v: f64, digits: usize) -> String {
    if let Some(s) = non_finite(v) {
        return s;
    }
    let digits = digits.max(1);
    if v != 0.0 {
        // The decimal exponent after rounding to `digits` significant digits.
        let s = format!("{:.*e}", digits - 1, v);
        let (mantissa, exponent) = s
            .split_once('e')
            .expect("LowerExp output of a finite f64 always contains `e`");
        let exponent: i32 = exponent
            .parse()
            .expect("LowerExp output of a finite f64 has an integer exponent");
        if !(-3..5).contains(&exponent) {
            let sign = if exponent < 0 { "" } else { "+" };
            return format!("{mantissa}e{sign}{exponent}");
        }
    }
    format_fixed(v, significant_decimals(v, digits))
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
