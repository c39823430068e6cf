//! A font for text in PNG charts. plotters draws bitmap text with ab_glyph,
//! which needs TrueType bytes: they are read at run time from the system
//! (Debian's fonts-dejavu-core, installed by scripts/setup.sh) or from the
//! file named by CARMBENCH_FONT. SVG text needs no font.

use crate::error::{Error, Result};
use plotters::style::FontStyle;
use std::sync::OnceLock;

/// Fonts tried in order after $CARMBENCH_FONT.
pub const CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
];

static REGISTERED: OnceLock<std::result::Result<String, String>> = OnceLock::new();

/// Register a sans-serif font with plotters once; the path used, or why none.
pub fn ensure() -> Result<String> {
    REGISTERED
        .get_or_init(|| {
            let from_env = std::env::var("CARMBENCH_FONT").ok();
            let paths = from_env.iter().map(String::as_str).chain(CANDIDATES.iter().copied());
            for p in paths {
                if let Ok(bytes) = std::fs::read(p) {
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                        return Ok(p.to_string());
                    }
                }
            }
            Err(format!(
                "no TrueType font found for PNG text (tried $CARMBENCH_FONT and {}); install one with `apt-get install fonts-dejavu-core`, set CARMBENCH_FONT=/path/to/font.ttf, or write an .svg chart",
                CANDIDATES[0]
            ))
        })
        .clone()
        .map_err(Error::input)
}
