//! The shipped font, and the files of a figure: SVG text from plotters, PNG rasterized
//! from the SVG by resvg.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use resvg::{tiny_skia, usvg};
use std::path::Path;
use std::sync::{Arc, Once, OnceLock};

/// The font family name the embedded font is registered under.
pub(in crate::report::figure) const FONT: &str = "sans-serif";
/// DejaVu Sans 2.37 (Debian fonts-dejavu-core), licence in assets/fonts/LICENSE-DejaVu.txt.
static DEJAVU_SANS: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

pub(super) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font (checked by the figure tests).
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// A figure drawn onto any plotters backend (heat maps, leaf-occupancy figures), so one
/// function writes its SVG and PNG ([`write_svg_png`]).
pub(in crate::report::figure) trait Drawable {
    /// The figure's name, for error messages.
    fn name(&self) -> &str;
    /// Draws the whole figure onto `root`.
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Writes `fig` as `svg` and `png`, both `size` pixels (user units for SVG).
///
/// # Errors
/// [`super::super::FigureError::Draw`] naming the figure and the file.
pub(in crate::report::figure) fn write_svg_png<F: Drawable>(
    fig: &F,
    svg: &Path,
    png: &Path,
    size: (u32, u32),
) -> Result<(), super::super::FigureError> {
    let draw_err = |path: &Path| {
        let path = path.to_path_buf();
        move |message: String| super::super::FigureError::Draw {
            figure: fig.name().to_string(),
            path,
            message,
        }
    };
    let (text, ()) = svg_text(size, |root| fig.draw_on(root)).map_err(draw_err(svg))?;
    std::fs::write(svg, &text)
        .map_err(|e| e.to_string())
        .map_err(draw_err(svg))?;
    write_png_from_svg(&text, png).map_err(draw_err(png))
}

/// Draws with `draw` onto an SVG of `size` user units and returns the SVG text.
pub(super) fn svg_text<T>(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<T, String>,
) -> Result<(String, T), String> {
    register_font();
    let mut text = String::new();
    let out = {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        let out = draw(&root)?;
        root.present().map_err(|e| e.to_string())?;
        out
    };
    Ok((text, out))
}

/// The family name of the shipped font, which the SVGs' `sans-serif` resolves to.
const FONT_FAMILY: &str = "DejaVu Sans";

/// resvg's options: a font database holding only the shipped font (no system fonts, so a
/// PNG is the same on every machine), which serves `sans-serif`.
fn raster_options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(DEJAVU_SANS.to_vec());
        db.set_sans_serif_family(FONT_FAMILY);
        usvg::Options {
            font_family: FONT_FAMILY.to_string(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// Rasterizes SVG text into PNG bytes at the SVG's size (one pixel per user unit) on a
/// white background, its text laid out and shaped by resvg with the shipped font.
///
/// # Errors
/// An unparsable SVG or an empty image, as text.
pub(in crate::report::figure) fn png_bytes_from_svg(svg: &str) -> Result<Vec<u8>, String> {
    let tree = usvg::Tree::from_str(svg, raster_options()).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "the SVG has an empty size".to_string())?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// Writes the PNG of SVG text ([`png_bytes_from_svg`]) to `path`.
pub(in crate::report::figure) fn write_png_from_svg(svg: &str, path: &Path) -> Result<(), String> {
    let bytes = png_bytes_from_svg(svg)?;
    std::fs::write(path, bytes).map_err(|e| e.to_string())
}
