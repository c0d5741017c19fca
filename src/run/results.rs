//! The tidy results files: runs.csv (one row per task) and its re-reading.

pub use crate::run_row::{RunRow, RUNS_HEADER};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Reads every row of a runs.csv.
///
/// # Errors
/// A message naming the file and the line of the first malformed row, or a header that
/// is not [`RUNS_HEADER`].
pub fn read_runs(path: &Path) -> Result<Vec<RunRow>, String> {
    use rayon::prelude::*;
    use std::io::{BufRead, BufReader, Seek, SeekFrom};
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = File::open(path).map_err(|e| err(&e))?;
    let mut reader = BufReader::with_capacity(1 << 16, &file);
    let mut header = Vec::new();
    reader.read_until(b'\n', &mut header).map_err(|e| err(&e))?;
    let header = String::from_utf8_lossy(&header);
    if header.trim_end_matches(['\n', '\r']) != RUNS_HEADER {
        return Err(format!(
            "{}: not a runs.csv of this dp-repro version (header should be `{RUNS_HEADER}`)",
            path.display()
        ));
    }
    // Without quotes every line is one record, so the body is cut at line ends into
    // pieces of about 1 MiB, counted in one sequential pass; then the rows are allocated
    // once and each piece is read and parsed on rayon's threads straight into its own
    // rows (the first error is reported with its line). Only a piece per thread is in
    // memory besides the rows. A quoted field may hold a line break, and a blank line
    // is no record: such a file is read in one sequential piece.
    let pieces = match line_pieces(&mut reader, header.len() as u64, 1 << 20) {
        Ok(Some(pieces)) => pieces,
        Ok(None) => {
            let mut file = &file;
            file.seek(SeekFrom::Start(header.len() as u64))
                .map_err(|e| err(&e))?;
            return records(path, file, 2).collect();
        }
        Err(e) => return Err(err(&e)),
    };
    let total = pieces.iter().map(|p| p.records).sum();
    let mut rows = Vec::new();
    rows.resize_with(total, RunRow::default);
    let mut chunks = Vec::with_capacity(pieces.len());
    let mut rest = rows.as_mut_slice();
    for p in &pieces {
        let (chunk, tail) = rest.split_at_mut(p.records);
        chunks.push(chunk);
        rest = tail;
    }
    pieces
        .par_iter()
        .zip(chunks.into_par_iter())
        .try_for_each(|(p, chunk)| {
            let bytes = read_range(path, p.start, p.len).map_err(|e| err(&e))?;
            let mut parsed = records(path, bytes.as_slice(), p.first_line);
            let count = |what| {
                format!(
                    "{}: {what} records than lines from line {} (expected {})",
                    path.display(),
                    p.first_line,
                    p.records
                )
            };
            for slot in chunk.iter_mut() {
                *slot = parsed.next().ok_or_else(|| count("fewer"))??;
            }
            match parsed.next() {
                None => Ok(()),
                Some(_) => Err(count("more")),
            }
        })?;
    Ok(rows)
}

/// A run of whole lines of runs.csv: `len` bytes from byte `start`, the first on line
/// `first_line` (1-based), holding `records` records.
struct Piece {
    start: u64,
    len: usize,
    first_line: usize,
    records: usize,
}

/// The body of runs.csv from byte `start` (read from `reader`, positioned there) cut at
/// line ends into pieces of about `size` bytes; None when the body holds a quote or a
/// blank line (lines would not be records).
fn line_pieces(
    reader: &mut impl std::io::BufRead,
    start: u64,
    size: u64,
) -> std::io::Result<Option<Vec<Piece>>> {
    let mut pieces = Vec::new();
    let (mut pos, mut piece_start, mut line_begin) = (start, start, start);
    let (mut lines, mut line, mut last) = (0, 2, b'\n');
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        if memchr::memchr(b'"', buf).is_some() {
            return Ok(None);
        }
        for nl in memchr::memchr_iter(b'\n', buf) {
            let at = pos + nl as u64;
            let before = if nl == 0 { last } else { buf[nl - 1] };
            if at == line_begin || (at == line_begin + 1 && before == b'\r') {
                return Ok(None); // a blank line
            }
            line_begin = at + 1;
            lines += 1;
            if line_begin - piece_start >= size {
                pieces.push(Piece {
                    start: piece_start,
                    len: (line_begin - piece_start) as usize,
                    first_line: line,
                    records: lines,
                });
                (piece_start, line, lines) = (line_begin, line + lines, 0);
            }
        }
        let n = buf.len();
        last = buf[n - 1];
        pos += n as u64;
        reader.consume(n);
    }
    if pos > line_begin {
        // The last line need not end in a line break.
        if pos == line_begin + 1 && last == b'\r' {
            return Ok(None);
        }
        lines += 1;
    }
    if pos > piece_start {
        pieces.push(Piece {
            start: piece_start,
            len: (pos - piece_start) as usize,
            first_line: line,
            records: lines,
        });
    }
    Ok(Some(pieces))
}

/// The header-less runs.csv rows of `input`, whose first row is on line `first_line`;
/// errors name the file and the line.
fn records<'a>(
    path: &'a Path,
    input: impl std::io::Read + 'a,
    first_line: usize,
) -> impl Iterator<Item = Result<RunRow, String>> + 'a {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(input)
        .into_deserialize::<RunRow>()
        .enumerate()
        .map(move |(i, r)| r.map_err(|e| damaged(path, first_line + i, &e)))
}

/// The number of fields of a runs.csv row.
fn runs_fields() -> usize {
    RUNS_HEADER.split(',').count()
}

/// The command that recomputes the damaged rows of the runs.csv in `dir`: `run` on the
/// folder's own spec.yaml, with the folder's repetition count and shard when run.json
/// records them (a hint without `--reps` would extend a folder run with `--reps 6` to the
/// spec's count).
pub(crate) fn rerun_command(dir: &Path) -> String {
    let record = std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let reps = record
        .as_ref()
        .and_then(|v| v["repetitions"].as_u64())
        .map(|r| format!(" --reps {r}"))
        .unwrap_or_default();
    let shard = record
        .as_ref()
        .and_then(|v| v["shard"].as_str().map(|s| format!(" --shard {s}")))
        .unwrap_or_default();
    format!(
        "dp-repro run {} --out {}{reps}{shard}",
        dir.join("spec.yaml").display(),
        dir.display()
    )
}

/// The message for a row of the runs.csv at `path` that does not parse (line `line`):
/// what is wrong with it and the command that recomputes it.
fn damaged(path: &Path, line: usize, e: &csv::Error) -> String {
    let what = match e.kind() {
        csv::ErrorKind::UnequalLengths { len, .. } => {
            format!("the row has {len} fields, not {}", runs_fields())
        }
        csv::ErrorKind::Deserialize { err, .. } => err.to_string(),
        _ => e.to_string(),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    format!(
        "{}: line {line}: {what}, so the row is damaged (an interrupted or concurrent write); run `{}` to recompute the damaged rows",
        path.display(),
        rerun_command(dir)
    )
}

/// Every row of a runs.csv that parses, read in one sequential pass, with the line
/// numbers of those that do not (damaged rows: cut short by a crash, or run together
/// by a write that lost its line break).
///
/// # Errors
/// A file that cannot be read, or a header that is not [`RUNS_HEADER`].
fn read_runs_skipping_damage(path: &Path) -> Result<(Vec<RunRow>, Vec<usize>), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let text = std::fs::read(path).map_err(|e| err(&e))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_slice());
    let (mut rows, mut damaged) = (Vec::new(), Vec::new());
    let mut record = csv::StringRecord::new();
    let mut first = true;
    loop {
        let line = reader.position().line() as usize;
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) if first => {
                first = false;
                if record.iter().collect::<Vec<_>>().join(",") != RUNS_HEADER {
                    return Err(format!(
                        "{}: not a runs.csv of this dp-repro version (header should be `{RUNS_HEADER}`)",
                        path.display()
                    ));
                }
            }
            Ok(true) if record.len() == runs_fields() => match record.deserialize::<RunRow>(None) {
                Ok(row) => rows.push(row),
                Err(_) => damaged.push(line),
            },
            Ok(true) => damaged.push(line),
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => return Err(err(&e)),
            Err(_) => damaged.push(line),
        }
    }
    Ok((rows, damaged))
}

/// runs.csv opened for appending by [`open_for_append`].
pub(crate) struct Appending {
    /// The rows already there (without the damaged ones).
    pub rows: Vec<RunRow>,
    /// Bytes of a partial last line cut off.
    pub cut_bytes: u64,
    /// Lines of damaged rows removed from the file (their tasks count as not computed).
    pub damaged_lines: Vec<usize>,
    /// Appends rows.
    pub writer: csv::Writer<File>,
}

/// Writes `rows` as the whole of runs.csv at `path` (through a temporary file renamed over
/// it, so an interruption leaves the old file).
///
/// # Errors
/// I/O errors, naming the file.
pub fn rewrite_runs(path: &Path, rows: &[RunRow]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let tmp = path.with_extension("csv.tmp");
    {
        let mut file = File::create(&tmp).map_err(|e| err(&e))?;
        writeln!(file, "{RUNS_HEADER}").map_err(|e| err(&e))?;
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(file);
        for r in rows {
            w.serialize(r).map_err(|e| err(&e))?;
        }
        w.flush().map_err(|e| err(&e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| err(&e))
}

/// Opens runs.csv for appending, creating it with its header when absent. A last line
/// without its newline — what a crash while writing leaves — is cut off first, and rows
/// that do not parse (damaged otherwise) are removed, so their tasks are computed again.
/// Returns the rows already there, the bytes cut and the lines removed.
///
/// # Errors
/// I/O errors and a header of another format, naming the file.
pub(crate) fn open_for_append(path: &Path) -> Result<Appending, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut cut = 0;
    let existing = if path.exists() {
        let len = std::fs::metadata(path).map_err(err)?.len();
        let keep = end_of_last_line(path, len).map_err(err)?;
        if keep < len {
            cut = len - keep;
            OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(err)?
                .set_len(keep)
                .map_err(err)?;
        }
        keep > 0
    } else {
        false
    };
    let mut damaged_lines = Vec::new();
    let rows = if existing {
        match read_runs(path) {
            Ok(rows) => rows,
            Err(_) => {
                let (rows, damaged) = read_runs_skipping_damage(path)?;
                if !damaged.is_empty() {
                    rewrite_runs(path, &rows)?;
                }
                damaged_lines = damaged;
                rows
            }
        }
    } else {
        Vec::new()
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    if !existing {
        writeln!(file, "{RUNS_HEADER}").map_err(err)?;
    }
    let writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(file);
    Ok(Appending {
        rows,
        cut_bytes: cut,
        damaged_lines,
        writer,
    })
}

/// The length of the file at `path` (`len` bytes) up to and including its last line
/// break (0 without one), read backwards from the end in blocks.
fn end_of_last_line(path: &Path, len: u64) -> std::io::Result<u64> {
    const BLOCK: u64 = 1 << 16;
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let buf = read_range(path, start, (end - start) as usize)?;
        if let Some(i) = memchr::memrchr(b'\n', &buf) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// `len` bytes of the file at `path` from byte `start` (on a handle of its own, so that
/// threads can read different ranges at once).
fn read_range(path: &Path, start: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = vec![0; len];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize) -> RunRow {
        RunRow {
            task: format!("{i:016x}"),
            dataset: "abalone".into(),
            method: "LPDT-M".into(),
            params: format!("depth={};min_leaf=20", i % 7),
            epsilon: (i % 3 != 0).then_some(0.5 * (i % 5) as f64 + 0.5),
            repetition: i % 50 + 1,
            metric: "mse".into(),
            value: i as f64 / 7.0,
            seconds: 1e-4 * i as f64,
        }
    }

    /// `r` as one line of runs.csv, without its line break.
    fn line_of(r: &RunRow) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.serialize(r).unwrap();
        String::from_utf8(w.into_inner().unwrap())
            .unwrap()
            .trim_end()
            .to_string()
    }

    /// A file of several 1 MiB pieces reads back as written, in order, and a malformed
    /// row in a later piece is reported with its own line number.
    #[test]
    fn pieces_read_in_order_and_errors_name_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let rows: Vec<RunRow> = (0..40_000).map(row).collect();
        rewrite_runs(&path, &rows).unwrap();
        assert!(
            std::fs::metadata(&path).unwrap().len() > 3 << 20,
            "several pieces"
        );
        assert_eq!(read_runs(&path).unwrap(), rows);

        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[35_001] = "0,abalone,LPDT-M,depth=1,0.5,1,mse,not-a-number,0.1";
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let err = read_runs(&path).unwrap_err();
        assert!(err.contains("line 35002"), "{err}");

        // A blank line is no record: the file is read in one piece, the same rows.
        let mut blank = rows[..5].iter().map(|r| line_of(r)).collect::<Vec<_>>();
        blank.insert(3, String::new());
        std::fs::write(&path, format!("{RUNS_HEADER}\n{}\n", blank.join("\n"))).unwrap();
        assert_eq!(read_runs(&path).unwrap(), rows[..5]);
        // Without a final line break, the last line is still a row.
        let text = rows[..5]
            .iter()
            .map(|r| line_of(r))
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&path, format!("{RUNS_HEADER}\n{text}")).unwrap();
        assert_eq!(read_runs(&path).unwrap(), rows[..5]);
        std::fs::write(&path, format!("{RUNS_HEADER}\n")).unwrap();
        assert_eq!(read_runs(&path).unwrap(), []);

        // A quoted field (here a line break inside one) is read in one piece.
        let mut quoted = rows[..3].to_vec();
        quoted[1].params = "a\nb".into();
        rewrite_runs(&path, &quoted).unwrap();
        assert_eq!(read_runs(&path).unwrap(), quoted);
    }
}
