//! The fast path of [`load_csv`](super::load_csv): a numeric CSV file parsed straight from
//! its bytes, in blocks of whole lines read by one thread while the others parse each
//! block's lines in parallel pieces.
//!
//! It reads exactly what the general reader ([`load_csv_general`](super::load_csv_general),
//! the `csv` crate) reads, or gives up: a cell that is a plain decimal number
//! (`[+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?`, a subset of what
//! `str::parse::<f64>` accepts) is converted by `fast_float2`, which rounds correctly as the
//! standard library does, so the bits are the same; every other cell goes through the general
//! reader's own rules ([`clean_cell`](super::file::clean_cell) then
//! [`classify`](super::missing::classify)). The fast path gives up — and the general reader
//! then reads the whole file, reporting errors with the same line numbers and texts — on
//! anything the `csv` crate could read differently (a `"` anywhere, a carriage return that is
//! not part of a line end, a byte-order mark) and on every error (a ragged row, a
//! non-numeric cell, a missing cell under `missing: error`, a bad class label, no rows).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::file::{clean_cell, FileFormat};
use super::missing::{classify, Cell, MissingPolicy};
use super::Task;

/// Bytes read per block; a block holds whole lines (a longer line makes a longer block).
const BLOCK_BYTES: usize = 32 << 20;

/// Pieces each block is cut into per thread, so the threads finish together.
const PIECES_PER_THREAD: usize = 4;

/// The UTF-8 byte-order mark, which the `csv` crate strips from a header.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A numeric CSV file as parsed: features row-major, labels, width.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// n×d features, row-major (the label column left out).
    pub x: Vec<f64>,
    /// n labels.
    pub y: Vec<f64>,
    /// Number of cells per row (d + 1).
    pub width: usize,
    /// Rows left out for a missing cell (`missing: drop_rows`).
    pub dropped: usize,
}

/// The fast path gave up; the general reader reads the file instead.
#[derive(Debug)]
struct GiveUp;

/// What one piece of a block parsed (buffers reused from block to block).
#[derive(Debug, Default)]
struct Piece {
    x: Vec<f64>,
    y: Vec<f64>,
    dropped: usize,
}

/// Parses the numeric CSV file at `path`, or returns None where the general reader must
/// read it (see the module documentation): an unreadable file, a file the `csv` crate
/// could split differently, any error, or no data row. With `digest`, the reading thread
/// also computes the file's sha256 (hex), returned when it read the whole file (always
/// when the parse succeeded), so a checked load reads the file once.
pub(crate) fn parse(
    path: &Path,
    format: FileFormat,
    digest: bool,
) -> (Option<Parsed>, Option<String>) {
    let Ok(mut file) = File::open(path) else {
        return (None, None);
    };
    let size = file.metadata().map_or(0, |m| m.len() as usize);
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = mpsc::sync_channel::<Vec<u8>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        let reader = scope.spawn(move || {
            let mut hasher = digest.then(Sha256::new);
            let whole = read_blocks(&mut file, &full_tx, &empty_rx, hasher.as_mut());
            whole.map(|whole| hasher.filter(|_| whole).map(|h| hex_digest(&h.finalize())))
        });
        let parsed = parse_blocks(&full_rx, &empty_tx, size, format);
        // Stop the reader (it may be waiting to send the next block) before joining it.
        drop(full_rx);
        match reader.join() {
            Ok(Ok(sha)) => (parsed, sha),
            _ => (None, None),
        }
    })
}

/// Lowercase hex digits of a digest.
fn hex_digest(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The reading thread: sends blocks of whole lines (the last one may lack its line end)
/// until the end of the file, reusing the buffers the parser sends back, and feeds every
/// byte read to `hasher`. Ok(true) when it read the whole file, Ok(false) when the parser
/// stopped first.
fn read_blocks(
    file: &mut File,
    full: &mpsc::SyncSender<Vec<u8>>,
    empty: &mpsc::Receiver<Vec<u8>>,
    mut hasher: Option<&mut Sha256>,
) -> io::Result<bool> {
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let mut buf = empty.try_recv().unwrap_or_default();
        buf.clear();
        buf.reserve(carry.len() + BLOCK_BYTES);
        buf.extend_from_slice(&carry);
        carry.clear();
        let want = BLOCK_BYTES as u64;
        let before = buf.len();
        let got = file.by_ref().take(want).read_to_end(&mut buf)?;
        if let Some(h) = hasher.as_mut() {
            h.update(&buf[before..]);
        }
        let eof = (got as u64) < want;
        if !eof {
            match memchr::memrchr(b'\n', &buf) {
                Some(p) => {
                    carry.extend_from_slice(&buf[p + 1..]);
                    buf.truncate(p + 1);
                }
                None => {
                    // A line longer than the block: read on.
                    carry = buf;
                    continue;
                }
            }
        }
        if full.send(buf).is_err() {
            return Ok(false);
        }
        if eof {
            return Ok(true);
        }
    }
}

/// The parsing side: header and width from the first lines, then every block in parallel
/// pieces appended in file order.
fn parse_blocks(
    full: &mpsc::Receiver<Vec<u8>>,
    empty: &mpsc::Sender<Vec<u8>>,
    size: usize,
    format: FileFormat,
) -> Option<Parsed> {
    let mut out = Parsed::default();
    let mut width: Option<usize> = None;
    let mut header_pending = format.has_header;
    let mut first_block = true;
    let pieces_wanted = rayon::current_num_threads() * PIECES_PER_THREAD;
    let mut pieces: Vec<Piece> = Vec::new();
    for buf in full {
        if first_block && buf.starts_with(BOM) {
            return None;
        }
        let mut region: &[u8] = &buf;
        while width.is_none() && !region.is_empty() {
            let (line, rest) = split_line(region);
            let line = strip_line_end(line).ok()?;
            if line.is_empty() {
                region = rest;
                continue;
            }
            if memchr::memchr(b'"', line).is_some() {
                return None;
            }
            width = Some(memchr::memchr_iter(b',', line).count() + 1);
            if std::mem::take(&mut header_pending) {
                region = rest;
            }
        }
        if let Some(w) = width {
            if format.label_column >= w {
                return None;
            }
            let cuts = split_at_lines(region, pieces_wanted);
            pieces.resize_with(cuts.len().max(pieces.len()), Piece::default);
            let ok = pieces
                .par_iter_mut()
                .zip(cuts.par_iter())
                .all(|(piece, text)| parse_piece(text, w, format, piece).is_ok());
            if !ok {
                return None;
            }
            if first_block && !region.is_empty() {
                // Reserve for the whole file from this block's bytes per row (+5%).
                let rows: usize = pieces[..cuts.len()]
                    .iter()
                    .map(|p| p.y.len() + p.dropped)
                    .sum();
                let estimate = (rows as f64 * size as f64 / region.len() as f64 * 1.05) as usize;
                out.x.reserve(estimate * (w - 1));
                out.y.reserve(estimate);
                super::matrix::advise_huge_pages(&out.x);
            }
            for piece in &pieces[..cuts.len()] {
                out.x.extend_from_slice(&piece.x);
                out.y.extend_from_slice(&piece.y);
                out.dropped += piece.dropped;
            }
            out.width = w;
        }
        first_block = false;
        // The reader may have finished; a buffer it cannot reuse is simply dropped.
        let _ = empty.send(buf);
    }
    if out.y.is_empty() {
        return None;
    }
    out.x.shrink_to_fit();
    out.y.shrink_to_fit();
    Some(out)
}

/// The first line of `text` (without its `\n`) and the rest after it.
fn split_line(text: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', text) {
        Some(p) => (&text[..p], &text[p + 1..]),
        None => (text, &[]),
    }
}

/// A line without the `\r` of a `\r\n` line end. A `\r` anywhere else ends a record for the
/// `csv` crate: give up.
fn strip_line_end(line: &[u8]) -> Result<&[u8], GiveUp> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match memchr::memchr(b'\r', line) {
        Some(_) => Err(GiveUp),
        None => Ok(line),
    }
}

/// `text` (whole lines) cut into about `k` pieces of whole lines.
fn split_at_lines(text: &[u8], k: usize) -> Vec<&[u8]> {
    let k = k.max(1);
    let mut cuts = Vec::with_capacity(k);
    let mut start = 0;
    for i in 1..=k {
        if start >= text.len() {
            break;
        }
        let target = (text.len() * i / k).max(start);
        let end = if i == k {
            text.len()
        } else {
            match memchr::memchr(b'\n', &text[target..]) {
                Some(p) => target + p + 1,
                None => text.len(),
            }
        };
        if end > start {
            cuts.push(&text[start..end]);
        }
        start = end;
    }
    cuts
}

/// Parses the whole lines of `text` into `piece` (cleared first).
fn parse_piece(
    text: &[u8],
    width: usize,
    format: FileFormat,
    piece: &mut Piece,
) -> Result<(), GiveUp> {
    piece.x.clear();
    piece.y.clear();
    piece.dropped = 0;
    let Piece { x, y, dropped } = piece;
    let label = format.label_column;
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = split_line(rest);
        rest = after;
        let line = strip_line_end(line)?;
        if line.is_empty() {
            continue;
        }
        let row_start = x.len();
        let mut missing_cell = false;
        let mut at = 0;
        for k in 0..width {
            if k > 0 {
                // The previous cell ended at a comma (checked below) or at the line's end.
                if at == line.len() {
                    return Err(GiveUp);
                }
                at += 1;
            }
            let (value, end) = match quick_decimal(line, at) {
                Some(parsed) => parsed,
                None => {
                    let end = memchr::memchr(b',', &line[at..]).map_or(line.len(), |p| at + p);
                    (cell_value(&line[at..end])?, end)
                }
            };
            at = end;
            let v = match value {
                Some(v) => v,
                None if format.missing == MissingPolicy::DropRows => {
                    missing_cell = true;
                    f64::NAN
                }
                None => return Err(GiveUp),
            };
            if k == label {
                y.push(v);
            } else {
                x.push(v);
            }
        }
        if at != line.len() {
            // More cells than the first row.
            return Err(GiveUp);
        }
        if missing_cell {
            *dropped += 1;
            x.truncate(row_start);
            y.pop();
            continue;
        }
        let v = *y.last().expect("one label per row");
        if format.task == Task::Classification && !(v >= 0.0 && v.fract() == 0.0) {
            return Err(GiveUp);
        }
    }
    Ok(())
}

/// Powers of ten exactly representable as f64.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The common cell `[+-]?digits[.digits]` followed by a comma or the line's end, read in
/// one pass: its value and where it ends, or None for any other cell. With at most 15
/// significant digits (< 2^53) and at most 22 after the point, the value is the digits as
/// an integer divided by a power of ten, both exact in f64, so the one rounding of the
/// division gives the correctly rounded value, as `str::parse` does (Clinger's fast path).
#[inline]
fn quick_decimal(line: &[u8], start: usize) -> Option<(Option<f64>, usize)> {
    let mut i = start;
    let n = line.len();
    let negative = i < n && line[i] == b'-';
    if negative || (i < n && line[i] == b'+') {
        i += 1;
    }
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    let int_start = i;
    while i < n && line[i].is_ascii_digit() {
        mantissa = mantissa
            .wrapping_mul(10)
            .wrapping_add(u64::from(line[i] - b'0'));
        i += 1;
    }
    digits += i - int_start;
    let mut fraction = 0usize;
    if i < n && line[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < n && line[i].is_ascii_digit() {
            mantissa = mantissa
                .wrapping_mul(10)
                .wrapping_add(u64::from(line[i] - b'0'));
            i += 1;
        }
        fraction = i - frac_start;
        digits += fraction;
    }
    if digits == 0 || digits > 15 || fraction > 22 || (i < n && line[i] != b',') {
        return None;
    }
    let magnitude = mantissa as f64 / EXACT_POWERS[fraction];
    Some((Some(if negative { -magnitude } else { magnitude }), i))
}

/// A cell's number (None for a missing cell), by the general reader's rules.
#[inline]
fn cell_value(cell: &[u8]) -> Result<Option<f64>, GiveUp> {
    if is_plain_decimal(cell) {
        let v: f64 = fast_float2::parse(cell).map_err(|_| GiveUp)?;
        if v.is_finite() {
            return Ok(Some(v));
        }
    }
    if memchr::memchr2(b'"', b'\r', cell).is_some() {
        return Err(GiveUp);
    }
    match classify(clean_cell(&String::from_utf8_lossy(cell))) {
        Cell::Number(v) => Ok(Some(v)),
        Cell::Missing(_) => Ok(None),
        Cell::Text => Err(GiveUp),
    }
}

/// Whether `s` is `[+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?` with nothing
/// around it: a decimal number that `str::parse::<f64>` accepts.
#[inline]
pub(crate) fn is_plain_decimal(s: &[u8]) -> bool {
    let n = s.len();
    let mut i = 0;
    if i < n && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < n && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < n && s[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < n && s[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return false;
    }
    if i < n && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        if i < n && (s[i] == b'+' || s[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < n && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == n
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn plain_decimals_parse_as_the_standard_library_does() {
        for s in ["0", "-0", "+1", "1.", ".5", "-.5e-3", "1E5", "2.2250738585072011e-308",
            "4.9e-324", "1e-400", "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "0.1000000000000000055511151231257827021181583404541015625"] {
            assert!(is_plain_decimal(s.as_bytes()), "{s}");
            let fast: f64 = fast_float2::parse(s).unwrap();
            assert_eq!(fast.to_bits(), s.parse::<f64>().unwrap().to_bits(), "{s}");
        }
        for s in [
            "", ".", "+", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "inf", "nan", "0x10", "1_0",
            "--1", "1,5",
        ] {
            assert!(!is_plain_decimal(s.as_bytes()), "{s:?}");
        }
        // Random digit strings of every shape: same bits as str::parse.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let alphabet = b"0123456789.eE+-0123456789.";
        for _ in 0..200_000 {
            let len = rng.gen_range(1..24);
            let s: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect();
            let text = std::str::from_utf8(&s).unwrap();
            if is_plain_decimal(&s) {
                let std = text.parse::<f64>().expect(text);
                let fast: f64 = fast_float2::parse(&s).unwrap();
                assert_eq!(fast.to_bits(), std.to_bits(), "{text}");
            }
            if let Some((value, end)) = quick_decimal(&s, 0) {
                assert_eq!(end, s.len(), "{text}");
                let quick = value.expect("a number");
                assert_eq!(
                    quick.to_bits(),
                    text.parse::<f64>().unwrap().to_bits(),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn pieces_are_whole_lines_covering_the_text() {
        let text = b"1,2\n3,4\n5,6\n\n7,8\n9,10\n";
        for k in 1..10 {
            let cuts = split_at_lines(text, k);
            assert_eq!(cuts.concat(), text.to_vec(), "k = {k}");
            assert!(cuts.iter().all(|c| c.ends_with(b"\n")), "k = {k}");
        }
        assert!(split_at_lines(b"", 4).is_empty());
    }
}
