//! Labels for the points of a chart: short enough to sit beside a disc,
//! never two alike. A long name is cut in its middle, not at its end: what
//! tells two functions of one library apart (`+0x642d0`, a loop's line) is
//! at the end, and what they share (a long module name) in the middle.

/// Characters a label takes at first.
pub const SHORT: usize = 28;

/// `name` without parameters or template arguments, and of a path of
/// namespaces the last two parts.
fn bare(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    for ch in name.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
        if depth < 0 {
            return name.to_string();
        }
    }
    // Loop names end in "(depth N)": kept, as their depth tells them apart.
    if let Some(d) = name.rfind(" (depth ").filter(|_| name.ends_with(')')) {
        out = format!("{}{}", out.trim_end(), &name[d..]);
    }
    // A loop's "f: loop at file.c:12" as "f @file.c:12".
    let out = out.replacen(": loop at ", " @", 1);
    let parts: Vec<&str> = out.split("::").collect();
    parts[parts.len().saturating_sub(2)..].join("::")
}

/// `s` in at most `max` characters, cut in the middle ("head…tail"): what
/// follows its last `+` or `@` (an offset, a loop's line) is kept whole when
/// it leaves room for a few characters of what precedes it, which is cut in
/// its own middle.
pub fn middle(s: &str, max: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= max || max < 5 {
        return s.to_string();
    }
    let cut = |c: &[char], room: usize| -> String {
        if c.len() <= room {
            return c.iter().collect();
        }
        let tail = (room - 1) / 2;
        let head = room - 1 - tail;
        let mut out: String = c[..head].iter().collect();
        out.push('…');
        out.extend(&c[c.len() - tail..]);
        out
    };
    match chars.iter().rposition(|c| *c == '+' || *c == '@') {
        Some(m) if chars.len() - m + 6 <= max => {
            let keep = chars.len() - m;
            let mut out = cut(&chars[..m], max - keep);
            out.extend(&chars[m..]);
            out
        }
        _ => cut(&chars, max),
    }
}

/// A label for each of `names`: cut to [`SHORT`] characters where they stay
/// apart, longer where two would read the same, and numbered where even
/// the whole names are alike.
pub fn labels(names: &[&str]) -> Vec<String> {
    let bare: Vec<String> = names.iter().map(|n| bare(n)).collect();
    let mut out: Vec<String> = bare.iter().map(|b| middle(b, SHORT)).collect();
    for max in [40, 56, usize::MAX] {
        let clashing: Vec<usize> = (0..out.len())
            .filter(|&i| out.iter().filter(|o| **o == out[i]).count() > 1)
            .collect();
        if clashing.is_empty() {
            return out;
        }
        for i in clashing {
            out[i] = match max {
                usize::MAX => names[i].to_string(),
                m => middle(&bare[i], m),
            };
        }
    }
    // Names alike even whole: numbered in order.
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for o in out.iter_mut() {
        let n = seen.entry(o.clone()).or_default();
        *n += 1;
        if *n > 1 {
            *o = format!("{o} [{n}]");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_keep_what_tells_them_apart() {
        let numpy = [
            "_multiarray_umath.cpython-311-x86_64-linux-gnu.so+0x642d0",
            "_multiarray_umath.cpython-311-x86_64-linux-gnu.so+0x63900",
        ];
        let l = labels(&numpy);
        assert_ne!(l[0], l[1]);
        assert!(
            l[0].ends_with("+0x642d0") && l[0].starts_with("_multiarr"),
            "{l:?}"
        );
        assert!(l.iter().all(|x| x.chars().count() <= SHORT), "{l:?}");
        // Short names stay whole; templates and parameters go.
        assert_eq!(
            labels(&["main", "std::vec::Vec<T>::push(T)"]),
            ["main", "Vec::push"]
        );
        // Loops of one line told apart by their depth.
        let loops = [
            "dgemm_kernel_HASWELL: loop at 0x15fdd20 (depth 3)",
            "dgemm_kernel_HASWELL: loop at 0x15ffca0 (depth 3)",
        ];
        let l = labels(&loops);
        assert_ne!(l[0], l[1], "{l:?}");
        assert!(
            l[0].starts_with("dgem") && l[0].contains("@0x15fdd20"),
            "{l:?}"
        );
        // Alike even whole: numbered.
        let l = labels(&["f", "f"]);
        assert_eq!(l, ["f", "f [2]"]);
    }
}
