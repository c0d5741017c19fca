//! Titles of figures: a multi-panel figure's title and subtitle over its grid of panels,
//! and subtitles wrapped at spaces.

use super::FONT;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Paints `root` white, writes a multi-panel figure's title and up to three wrapped lines
/// of subtitle in its top `header` pixels, and splits the rest into a grid of `panels`
/// areas, `columns` per row (row-major). Shared by heat maps and leaf-occupancy figures.
///
/// # Errors
/// The backend's drawing error, as text.
pub(in crate::report::figure) fn titled_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (title, subtitle): (&str, &str),
    header: u32,
    (panels, columns): (usize, usize),
) -> Result<Vec<DrawingArea<DB, Shift>>, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let (top, body) = root.split_vertically(header);
    let pos = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        title.to_string(),
        (w as i32 / 2, 10),
        TextStyle::from((FONT, 20).into_font()).pos(pos),
    ))
    .map_err(err)?;
    let width = (w as usize / 8).max(40);
    for (i, line) in wrap(subtitle, width).iter().take(3).enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 38 + 17 * i as i32),
            TextStyle::from((FONT, 13).into_font())
                .color(&RGBColor(0x44, 0x44, 0x44))
                .pos(pos),
        ))
        .map_err(err)?;
    }
    let rows = panels.max(1).div_ceil(columns);
    let cols = panels.clamp(1, columns);
    Ok(body.split_evenly((rows, cols)))
}

/// Splits text into lines of at most `width` characters at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let cur = lines.last_mut().expect("one line");
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
    }
}
