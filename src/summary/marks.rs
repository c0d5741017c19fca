//! `marks.csv`: the marks of every cell of the run's rendered tables, one row per cell,
//! so that readers other than the LaTeX (the report site, a script in pandas or R) show
//! the same bold, underline and `*` as the tables (the rules: `docs/methods/lpdt.md` §8.3,
//! `docs/methods/lpct.md` §10.5, `docs/methods/histoftree.md` §10).

use crate::report::Table;
use crate::run::seeds::epsilon_text;

/// The header of `marks.csv`.
pub const MARKS_HEADER: [&str; 9] = [
    "table",
    "block",
    "dataset",
    "method",
    "epsilon",
    "value",
    "bold",
    "underline",
    "star",
];

/// The rows of `marks.csv` for rendered table `table` named `name`, whose first
/// `datasets.len()` rows are the data sets `datasets` (their names, not their row labels)
/// in order: one row per cell with a value, in the table's order (rows, then columns
/// left to right). `epsilon` is empty for the non-private columns; the marks are `0`/`1`.
/// The summary rows (rank sums, first places) and the rows of data sets not run are not
/// cells of a data set and are left out.
pub fn marks_rows(name: &str, table: &Table, datasets: &[String]) -> Vec<[String; 9]> {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let mut out = Vec::new();
    for (row, dataset) in table.rows.iter().zip(datasets) {
        let columns = table.groups.iter().flat_map(|g| {
            g.columns
                .iter()
                .map(move |m| (g.block.clone(), m, g.epsilon.map(epsilon_text)))
        });
        for (cell, (block, method, eps)) in row.cells.iter().zip(columns) {
            let Some(v) = cell.value else { continue };
            out.push([
                name.to_string(),
                block,
                dataset.clone(),
                method.clone(),
                eps.unwrap_or_default(),
                format!("{v}"),
                flag(cell.bold),
                flag(cell.underline),
                flag(cell.star),
            ]);
        }
    }
    out
}

/// `marks.csv` as text: [`MARKS_HEADER`] then `rows`.
///
/// # Errors
/// The csv writer's error (a row of the wrong length).
pub fn marks_csv(rows: &[[String; 9]]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(MARKS_HEADER)?;
    for r in rows {
        w.write_record(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("the rows are UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Cell, ColumnGroup, NumberFormat, Row};

    fn table() -> Table {
        let mut t = Table::new("t", "caption", "Data");
        t.groups = vec![
            ColumnGroup {
                label: String::new(),
                epsilon: None,
                block: String::new(),
                columns: vec!["DT".into()],
            },
            ColumnGroup {
                label: String::new(),
                epsilon: Some(2.0),
                block: "Aligned".into(),
                columns: vec!["A".into(), "B".into()],
            },
        ];
        let f = NumberFormat::Fixed(2);
        t.rows = vec![
            Row {
                label: "ABA".into(),
                cells: vec![
                    Cell::new(Some(1.0), f),
                    Cell::new(Some(2.0), f).with_marks(true, false, true),
                    Cell::new(None, f),
                ],
                scale: None,
            },
            Row {
                label: "(not run)".into(),
                cells: vec![Cell::missing(); 3],
                scale: None,
            },
        ];
        t
    }

    #[test]
    fn each_cell_with_a_value_keeps_its_column_and_its_marks() {
        let rows = marks_rows("t", &table(), &["abalone".to_string()]);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0][1..], ["", "abalone", "DT", "", "1", "0", "0", "0"]);
        assert_eq!(
            rows[1][1..],
            ["Aligned", "abalone", "A", "2", "2", "1", "0", "1"]
        );
    }

    #[test]
    fn the_csv_reads_back_as_its_rows() {
        let rows = marks_rows("t", &table(), &["abalone".to_string()]);
        let text = marks_csv(&rows).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(
            r.headers().unwrap(),
            &csv::StringRecord::from(MARKS_HEADER.to_vec())
        );
        let back: Vec<Vec<String>> = r
            .records()
            .map(|x| x.unwrap().iter().map(String::from).collect())
            .collect();
        assert_eq!(back, rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>());
    }
}
