//! Byte counts as text and back.

/// Bytes as KiB/MiB/GiB text.
pub fn human_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut i = 0;
    while x >= 1024.0 && i + 1 < U.len() {
        x /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else if (x - x.round()).abs() < 0.005 {
        format!("{} {}", x.round() as u64, U[i])
    } else {
        format!("{x:.2} {}", U[i])
    }
}

/// Parse "32KiB", "1MiB", "4096", "2GiB" (also kB/MB/GB as powers of 1000).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size; write e.g. 32KiB, 1MiB or 4096"))?;
    let m = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" | "k" => 1024.0,
        "mib" | "m" => 1048576.0,
        "gib" | "g" => 1073741824.0,
        "tib" | "t" => 1099511627776.0,
        "pib" | "p" => 1125899906842624.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "pb" => 1e15,
        u => {
            return Err(format!(
                "unknown size unit '{u}' in '{s}'; use B, KiB, MiB, GiB, TiB or PiB"
            ));
        }
    };
    let bytes = x * m;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes <= (1u64 << 50) as f64) {
        return Err(format!(
            "'{s}' is not a usable buffer size; give 1 B to 1 PiB, e.g. 32KiB"
        ));
    }
    Ok(bytes as u64)
}

/// A number as a message shows it: plain when it reads well, else in
/// scientific notation (1e308, not 309 digits).
pub fn num(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_units() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(48 * 1024), "48 KiB");
        assert_eq!(human_bytes(1536 * 1024), "1.50 MiB");
        assert_eq!(human_bytes(32 << 30), "32 GiB");
    }

    #[test]
    fn sizes_parse_in_both_unit_systems() {
        assert_eq!(parse_size("32KiB"), Ok(32 << 10));
        assert_eq!(parse_size("1.5 MiB"), Ok(3 << 19));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("24kB"), Ok(24_000));
        assert!(parse_size("many").is_err());
        assert!(parse_size("3 parsecs").unwrap_err().contains("unit"));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1e400").is_err());
        // The units of the range the error names are units it reads.
        assert_eq!(parse_size("1PiB"), Ok(1 << 50));
        assert!(parse_size("2PiB").unwrap_err().contains("1 B to 1 PiB"));
    }
}
