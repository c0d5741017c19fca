//! Parquet input: a manifest whose `file` ends in `.parquet` (as written by pandas'
//! `DataFrame.to_parquet` or polars' `write_parquet`; snappy, zstd, lz4, gzip or no
//! compression) is read with the rules of a CSV manifest, cell for cell as the CSV export
//! of the same table (`df.to_csv(index=False)`, header on line 1) would be read:
//!
//! - column names come from the schema (the manifest must say `has_header: true`);
//!   `label_column` counts the file's columns from 0;
//! - a float is its exact value; NaN and ±inf are missing (not finite), a null is an empty
//!   cell (missing); integers are converted to the nearest f64 (unsigned ones read as
//!   unsigned); a 32-bit float is the number its shortest decimal form denotes, as in the
//!   CSV; a string column's text is read as a CSV cell (so `"2.5"` is 2.5 and `"?"` is
//!   missing); booleans are the text `True`/`False` (a number nowhere, a code under
//!   `encode`);
//! - `missing`, `task` and `encode` rules apply unchanged, and errors name the line the
//!   cell would have in that CSV file: data row r (1-based) is line r + 1.
//!
//! Columns that are not plain numbers or text — decimals, dates, times, timestamps,
//! nested or repeated fields — are refused with a message naming the column.

use std::fs::File;
use std::path::Path;

use parquet::basic::{ConvertedType, LogicalType, Type as Physical};
use parquet::column::reader::{get_typed_column_reader, ColumnReader, ColumnReaderImpl};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FloatType, Int32Type, Int64Type,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::ColumnDescriptor;

pub use super::file::is_parquet;
use super::file::{clean_cell, FileFormat, Loaded};
use super::missing::{classify, Cell};
use super::rows::NumericRows;
use super::DataError;

/// Rows read from every column at a time.
const BATCH_ROWS: usize = 65_536;

/// A Parquet error as a [`DataError`] naming the file.
fn parquet_error(path: &Path, message: impl std::fmt::Display) -> DataError {
    DataError::Parquet {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// How a column's values become cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Double,
    Float,
    Int32 { unsigned: bool },
    Int64 { unsigned: bool },
    Bool,
    Text,
}

/// The kind of column `k`, or why it cannot be read.
fn kind_of(path: &Path, k: usize, col: &ColumnDescriptor) -> Result<Kind, DataError> {
    let refuse = |what: String| {
        parquet_error(
            path,
            format!(
                "column {k} ({:?}) {what}; only numbers (floats, integers), text and \
                 booleans can be read: convert it in pandas or polars before writing \
                 (e.g. df[col] = df[col].astype(float)), or drop it",
                col.name()
            ),
        )
    };
    if col.max_rep_level() > 0 || col.path().parts().len() > 1 {
        return Err(refuse("is nested or repeated".into()));
    }
    let physical = col.physical_type();
    let unsupported = |t: String| refuse(format!("has Parquet type {physical} ({t})"));
    let unsigned = match col.logical_type_ref() {
        Some(LogicalType::Integer(t)) => !t.is_signed,
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json) | None => false,
        Some(LogicalType::Unknown) => false,
        Some(other) => return Err(unsupported(format!("{other:?}"))),
    };
    let unsigned = unsigned
        || matches!(
            col.converted_type(),
            ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64
        );
    match col.converted_type() {
        ConvertedType::DECIMAL
        | ConvertedType::DATE
        | ConvertedType::TIME_MILLIS
        | ConvertedType::TIME_MICROS
        | ConvertedType::TIMESTAMP_MILLIS
        | ConvertedType::TIMESTAMP_MICROS
        | ConvertedType::INTERVAL => {
            return Err(unsupported(format!("{}", col.converted_type())));
        }
        _ => {}
    }
    Ok(match physical {
        Physical::DOUBLE => Kind::Double,
        Physical::FLOAT => Kind::Float,
        Physical::INT32 => Kind::Int32 { unsigned },
        Physical::INT64 => Kind::Int64 { unsigned },
        Physical::BOOLEAN => Kind::Bool,
        Physical::BYTE_ARRAY => Kind::Text,
        _ => return Err(unsupported("not a number".into())),
    })
}

/// One cell of a Parquet table.
#[derive(Debug, Clone, Copy)]
enum Value<'a> {
    Null,
    F64(f64),
    F32(f32),
    Int(i64),
    UInt(u64),
    Bool(bool),
    Text(&'a [u8]),
}

impl Value<'_> {
    /// The cell as the CSV reader classifies the text a CSV export holds for it.
    fn classify(&self) -> Cell {
        match *self {
            Value::Null => classify(""),
            Value::F64(v) if v.is_finite() => Cell::Number(v),
            Value::F64(_) | Value::F32(_) | Value::Bool(_) => classify(&self.text()),
            Value::Int(v) => Cell::Number(v as f64),
            Value::UInt(v) => Cell::Number(v as f64),
            Value::Text(b) => classify(clean_cell(&String::from_utf8_lossy(b))),
        }
    }

    /// The cell's text in a CSV export: empty for a null, the shortest decimal form that
    /// reads back as the same number, `True`/`False`, a string as stored.
    fn text(&self) -> String {
        match *self {
            Value::Null => String::new(),
            Value::F64(v) => format!("{v:?}"),
            Value::F32(v) => format!("{v:?}"),
            Value::Int(v) => v.to_string(),
            Value::UInt(v) => v.to_string(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Text(b) => String::from_utf8_lossy(b).into_owned(),
        }
    }
}

/// The non-null values of one column for a batch of rows.
enum Values {
    Double(Vec<f64>),
    Float(Vec<f32>),
    Int32(Vec<i32>, bool),
    Int64(Vec<i64>, bool),
    Bool(Vec<bool>),
    Text(Vec<ByteArray>),
}

/// A typed reader of one column chunk.
enum Reader {
    Double(ColumnReaderImpl<DoubleType>),
    Float(ColumnReaderImpl<FloatType>),
    Int32(ColumnReaderImpl<Int32Type>),
    Int64(ColumnReaderImpl<Int64Type>),
    Bool(ColumnReaderImpl<BoolType>),
    Text(ColumnReaderImpl<ByteArrayType>),
}

/// One column of a batch: its values and, for each row, the index of its value (None for
/// a null).
struct Column {
    values: Values,
    levels: Vec<i16>,
    slots: Vec<Option<usize>>,
}

impl Column {
    fn new(kind: Kind) -> Column {
        let values = match kind {
            Kind::Double => Values::Double(Vec::new()),
            Kind::Float => Values::Float(Vec::new()),
            Kind::Int32 { unsigned } => Values::Int32(Vec::new(), unsigned),
            Kind::Int64 { unsigned } => Values::Int64(Vec::new(), unsigned),
            Kind::Bool => Values::Bool(Vec::new()),
            Kind::Text => Values::Text(Vec::new()),
        };
        Column {
            values,
            levels: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Reads up to `max` rows from `reader` (of the same kind); the number of rows read.
    fn read(
        &mut self,
        reader: &mut Reader,
        max: usize,
        nullable: bool,
    ) -> parquet::errors::Result<usize> {
        fn batch<T: DataType>(
            r: &mut ColumnReaderImpl<T>,
            max: usize,
            levels: &mut Vec<i16>,
            values: &mut Vec<T::T>,
        ) -> parquet::errors::Result<usize> {
            levels.clear();
            values.clear();
            Ok(r.read_records(max, Some(levels), None, values)?.0)
        }
        let levels = &mut self.levels;
        let rows = match (reader, &mut self.values) {
            (Reader::Double(r), Values::Double(v)) => batch(r, max, levels, v)?,
            (Reader::Float(r), Values::Float(v)) => batch(r, max, levels, v)?,
            (Reader::Int32(r), Values::Int32(v, _)) => batch(r, max, levels, v)?,
            (Reader::Int64(r), Values::Int64(v, _)) => batch(r, max, levels, v)?,
            (Reader::Bool(r), Values::Bool(v)) => batch(r, max, levels, v)?,
            (Reader::Text(r), Values::Text(v)) => batch(r, max, levels, v)?,
            _ => unreachable!("reader and values are made from one kind"),
        };
        self.slots.clear();
        if nullable {
            let mut next = 0;
            for &level in &self.levels[..rows] {
                if level > 0 {
                    self.slots.push(Some(next));
                    next += 1;
                } else {
                    self.slots.push(None);
                }
            }
        } else {
            self.slots.extend((0..rows).map(Some));
        }
        Ok(rows)
    }

    /// The cell of row `i` of the batch.
    fn cell(&self, i: usize) -> Value<'_> {
        let Some(j) = self.slots[i] else {
            return Value::Null;
        };
        match &self.values {
            Values::Double(v) => Value::F64(v[j]),
            Values::Float(v) => Value::F32(v[j]),
            Values::Int32(v, false) => Value::Int(i64::from(v[j])),
            Values::Int32(v, true) => Value::UInt(u64::from(v[j] as u32)),
            Values::Int64(v, false) => Value::Int(v[j]),
            Values::Int64(v, true) => Value::UInt(v[j] as u64),
            Values::Bool(v) => Value::Bool(v[j]),
            Values::Text(v) => Value::Text(v[j].data()),
        }
    }
}

/// An open Parquet file with flat columns of readable kinds.
struct Table<'p> {
    path: &'p Path,
    reader: SerializedFileReader<File>,
    names: Vec<String>,
    kinds: Vec<Kind>,
    nullable: Vec<bool>,
    rows: usize,
}

impl<'p> Table<'p> {
    /// Opens `path` and checks its columns.
    ///
    /// # Errors
    /// [`DataError::Io`], [`DataError::Parquet`] for a file that is not Parquet or has a
    /// column of another kind.
    fn open(path: &'p Path) -> Result<Table<'p>, DataError> {
        let file = File::open(path).map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let reader = SerializedFileReader::new(file)
            .map_err(|e| parquet_error(path, format!("not a readable Parquet file: {e}")))?;
        let meta = reader.metadata().file_metadata();
        let schema = meta.schema_descr();
        let mut names = Vec::with_capacity(schema.num_columns());
        let mut kinds = Vec::with_capacity(schema.num_columns());
        let mut nullable = Vec::with_capacity(schema.num_columns());
        for k in 0..schema.num_columns() {
            let col = schema.column(k);
            kinds.push(kind_of(path, k, &col)?);
            names.push(col.name().to_string());
            nullable.push(col.max_def_level() > 0);
        }
        let rows = usize::try_from(meta.num_rows()).unwrap_or(0);
        Ok(Table {
            path,
            reader,
            names,
            kinds,
            nullable,
            rows,
        })
    }

    /// Calls `f(line, width, cell)` for every row in file order, `line` being the row's
    /// line in the CSV export (data row r, 1-based, is line r + 1) and `cell(k)` its cell
    /// in column k.
    ///
    /// # Errors
    /// [`DataError::Parquet`] for an unreadable row group or column, and `f`'s errors.
    fn for_each_row(
        &self,
        mut f: impl for<'c> FnMut(u64, usize, &'c dyn Fn(usize) -> Value<'c>) -> Result<(), DataError>,
    ) -> Result<(), DataError> {
        let width = self.names.len();
        let bad = |e: parquet::errors::ParquetError| parquet_error(self.path, e);
        let mut columns: Vec<Column> = self.kinds.iter().map(|&k| Column::new(k)).collect();
        let mut line = 1u64;
        for g in 0..self.reader.num_row_groups() {
            let group = self.reader.get_row_group(g).map_err(bad)?;
            let mut readers = (0..width)
                .map(|k| group.get_column_reader(k).map(typed))
                .collect::<Result<Vec<Reader>, _>>()
                .map_err(bad)?;
            loop {
                let mut rows = None;
                for (k, (column, reader)) in columns.iter_mut().zip(&mut readers).enumerate() {
                    let m = column
                        .read(reader, BATCH_ROWS, self.nullable[k])
                        .map_err(bad)?;
                    if *rows.get_or_insert(m) != m {
                        return Err(parquet_error(
                            self.path,
                            format!("row group {g}: its columns have different numbers of rows"),
                        ));
                    }
                }
                let rows = rows.unwrap_or(0);
                if rows == 0 {
                    break;
                }
                for i in 0..rows {
                    line += 1;
                    f(line, width, &|k| columns[k].cell(i))?;
                }
            }
        }
        Ok(())
    }
}

/// A column reader as the typed reader of its kind.
fn typed(reader: ColumnReader) -> Reader {
    match reader {
        ColumnReader::DoubleColumnReader(_) => Reader::Double(get_typed_column_reader(reader)),
        ColumnReader::FloatColumnReader(_) => Reader::Float(get_typed_column_reader(reader)),
        ColumnReader::Int32ColumnReader(_) => Reader::Int32(get_typed_column_reader(reader)),
        ColumnReader::Int64ColumnReader(_) => Reader::Int64(get_typed_column_reader(reader)),
        ColumnReader::BoolColumnReader(_) => Reader::Bool(get_typed_column_reader(reader)),
        ColumnReader::ByteArrayColumnReader(_) => Reader::Text(get_typed_column_reader(reader)),
        _ => unreachable!("other physical types are refused when the table is opened"),
    }
}

/// Loads a numeric Parquet file into a data set, by the rules of
/// [`load_csv`](super::load_csv) applied to its CSV export (see the module documentation).
/// The file's schema names its columns, so `format.has_header` is not read.
///
/// # Errors
/// Those of [`load_csv`](super::load_csv) (with the CSV export's line numbers), and
/// [`DataError::Parquet`] for a file that cannot be read or a column that is not a number
/// or text.
pub fn load_parquet(path: &Path, name: &str, format: FileFormat) -> Result<Loaded, DataError> {
    let table = Table::open(path)?;
    let mut rows = NumericRows::new(path, Some(&table.names), format);
    rows.reserve(table.rows);
    table.for_each_row(|line, width, cell| {
        rows.push(line, width, |k| cell(k).classify(), |k| cell(k).text())
    })?;
    rows.finish(name)
}

/// The column names and the rows of a Parquet file as text cells (each cleaned as a CSV
/// cell is), with the CSV export's line numbers: what the `encode` rules read.
///
/// # Errors
/// As [`load_parquet`].
pub(crate) fn text_table(path: &Path) -> Result<(Vec<String>, Vec<(u64, Vec<String>)>), DataError> {
    let table = Table::open(path)?;
    let mut rows = Vec::with_capacity(table.rows);
    table.for_each_row(|line, width, cell| {
        let cells = (0..width)
            .map(|k| clean_cell(&cell(k).text()).to_string())
            .collect();
        rows.push((line, cells));
        Ok(())
    })?;
    Ok((table.names.clone(), rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_their_csv_text_would() {
        assert_eq!(Value::F64(0.1).classify(), Cell::Number(0.1));
        assert_eq!(Value::F64(0.1).text(), "0.1");
        assert!(matches!(Value::F64(f64::NAN).classify(), Cell::Missing(_)));
        assert!(matches!(Value::Null.classify(), Cell::Missing(_)));
        // A 32-bit float is the number of its shortest decimal form, as in the CSV.
        assert_eq!(Value::F32(0.1).classify(), Cell::Number(0.1));
        assert_eq!(Value::Int(-3).classify(), Cell::Number(-3.0));
        assert_eq!(
            Value::UInt(u64::MAX).classify(),
            Cell::Number(u64::MAX as f64)
        );
        assert_eq!(Value::Bool(true).classify(), Cell::Text);
        assert_eq!(Value::Bool(false).text(), "False");
        assert_eq!(Value::Text(b" 2.5 ").classify(), Cell::Number(2.5));
        assert!(matches!(Value::Text(b"?").classify(), Cell::Missing(_)));
        assert!(is_parquet(Path::new("a/b.PARQUET")) && !is_parquet(Path::new("b.csv")));
    }
}
