//! The font chart text is drawn and laid out with. plotters measures and
//! draws text with ab_glyph, which needs TrueType bytes, for SVG charts
//! too: the file named by CARMBENCH_FONT, else a system DejaVu or Liberation
//! Sans, else the DejaVu Sans carried in the binary (compute nodes and
//! containers often have no fonts; its licence is `assets/fonts/LICENSE`).

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

/// DejaVu Sans 2.37, unmodified: drawn with when no other font is found.
static CARRIED: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Its licence, which travels with every copy of the font.
pub static CARRIED_LICENCE: &str = include_str!("../../assets/fonts/LICENSE");

/// Where the font drawn with comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file: CARMBENCH_FONT's, or a system font's.
    File(String),
    /// The DejaVu Sans carried in the binary.
    Carried,
}

static REGISTERED: OnceLock<std::result::Result<Source, String>> = OnceLock::new();

/// Register a sans-serif font with plotters once: where it came from, or
/// why none could be (a CARMBENCH_FONT that is not a TrueType font).
pub fn ensure() -> Result<Source> {
    REGISTERED
        .get_or_init(|| {
            let register = |bytes: &'static [u8]| {
                plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
            };
            if let Ok(p) = std::env::var("CARMBENCH_FONT") {
                let bytes = std::fs::read(&p).map_err(|e| {
                    format!("CARMBENCH_FONT={p}: {e}; name a TrueType font file, or unset it")
                })?;
                return match register(Box::leak(bytes.into_boxed_slice())) {
                    true => Ok(Source::File(p)),
                    false => Err(format!(
                        "CARMBENCH_FONT={p} is not a TrueType font; name a .ttf file, or unset it"
                    )),
                };
            }
            for p in CANDIDATES {
                if let Ok(bytes) = std::fs::read(p)
                    && register(Box::leak(bytes.into_boxed_slice()))
                {
                    return Ok(Source::File(p.to_string()));
                }
            }
            match register(CARRIED) {
                true => Ok(Source::Carried),
                false => Err("the font carried in carmbench could not be read".into()),
            }
        })
        .clone()
        .map_err(Error::input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_carried_font_is_a_font_and_its_licence_names_it() {
        let font = plotters::style::register_font("carried", FontStyle::Normal, CARRIED);
        assert!(font.is_ok());
        assert!(CARRIED_LICENCE.contains("Bitstream") && CARRIED_LICENCE.contains("DejaVu"));
    }
}
