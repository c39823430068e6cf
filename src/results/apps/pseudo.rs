//! Pseudo-flops (Ofenbeck et al., Figs. 5c and 5d): a series' work given
//! by a formula of its size (`5*n*log2(n)` for an FFT) in place of the
//! work counted, so that codes doing different work compare on one scale.

use super::{AppPoint, SizedRegion};

/// A formula in `n`: numbers, `n`, `+ - * / ^`, brackets, and `log2`,
/// `log` (natural), `sqrt` of a bracketed argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number.
    Num(f64),
    /// The size.
    N,
    /// `-x`.
    Neg(Box<Expr>),
    /// `a op b`, op one of `+ - * / ^`.
    Op(char, Box<Expr>, Box<Expr>),
    /// `f(x)`, f one of `log2`, `log`, `sqrt`.
    Call(Fun, Box<Expr>),
}

/// A function a formula may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fun {
    Log2,
    Log,
    Sqrt,
}

impl Expr {
    /// The formula at size `n`.
    pub fn at(&self, n: f64) -> f64 {
        match self {
            Expr::Num(v) => *v,
            Expr::N => n,
            Expr::Neg(x) => -x.at(n),
            Expr::Op(op, a, b) => {
                let (a, b) = (a.at(n), b.at(n));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Expr::Call(f, x) => match f {
                Fun::Log2 => x.at(n).log2(),
                Fun::Log => x.at(n).ln(),
                Fun::Sqrt => x.at(n).sqrt(),
            },
        }
    }
}

/// Reads a formula left to right: sums of products of powers.
struct Reader<'a> {
    s: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&mut self) -> Option<u8> {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
        self.s.get(self.at).copied()
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut a = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            a = Expr::Op(op as char, Box::new(a), Box::new(self.product()?));
        }
        Ok(a)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut a = self.power()?;
        while let Some(op @ (b'*' | b'/')) = self.peek() {
            self.at += 1;
            a = Expr::Op(op as char, Box::new(a), Box::new(self.power()?));
        }
        Ok(a)
    }

    /// `a ^ b`, right to left (`2^3^2` is `2^9`); a leading minus binds
    /// looser than `^` (`-n^2` is `-(n^2)`).
    fn power(&mut self) -> Result<Expr, String> {
        if self.peek() == Some(b'-') {
            self.at += 1;
            return Ok(Expr::Neg(Box::new(self.power()?)));
        }
        let a = self.atom()?;
        if self.peek() == Some(b'^') {
            self.at += 1;
            return Ok(Expr::Op('^', Box::new(a), Box::new(self.power()?)));
        }
        Ok(a)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let x = self.sum()?;
                self.expect(b')')?;
                Ok(x)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some(c) => Err(format!(
                "'{}' where a number, n or a function was expected",
                c as char
            )),
            None => Err("it ends where a number, n or a function was expected".into()),
        }
    }

    fn number(&mut self) -> Result<Expr, String> {
        let start = self.at;
        while let Some(c) = self.s.get(self.at) {
            let exp =
                (*c == b'+' || *c == b'-') && matches!(self.s.get(self.at - 1), Some(b'e' | b'E'));
            if !(c.is_ascii_digit() || *c == b'.' || *c == b'e' || *c == b'E' || exp) {
                break;
            }
            self.at += 1;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.at]);
        (text.parse::<f64>())
            .map(Expr::Num)
            .map_err(|_| format!("'{text}' is no number"))
    }

    fn word(&mut self) -> Result<Expr, String> {
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.at += 1;
        }
        let word = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
        let fun = match word.as_str() {
            "n" => return Ok(Expr::N),
            "log2" => Fun::Log2,
            "log" => Fun::Log,
            "sqrt" => Fun::Sqrt,
            _ => return Err(format!("'{word}' is neither n nor log2, log or sqrt")),
        };
        self.expect(b'(')?;
        let x = self.sum()?;
        self.expect(b')')?;
        Ok(Expr::Call(fun, Box::new(x)))
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        match self.peek() {
            Some(x) if x == c => {
                self.at += 1;
                Ok(())
            }
            _ => Err(format!("'{}' expected", c as char)),
        }
    }
}

/// A series' work given as a formula: `NAME=EXPR`.
#[derive(Debug, Clone, PartialEq)]
pub struct PseudoWork {
    /// The series.
    pub series: String,
    /// The work of one call at size `n`.
    pub expr: Expr,
    /// The formula as given.
    pub text: String,
}

impl std::str::FromStr for PseudoWork {
    type Err = String;
    fn from_str(s: &str) -> Result<PseudoWork, String> {
        let (series, text) = (s.split_once('=')).ok_or_else(|| {
            format!("'{s}': give the series and its work as NAME=EXPR, e.g. fft=5*n*log2(n)")
        })?;
        let mut r = Reader {
            s: text.as_bytes(),
            at: 0,
        };
        let expr = r.sum().and_then(|x| match r.peek() {
            None => Ok(x),
            Some(c) => Err(format!("'{}' after a whole formula", c as char)),
        });
        let expr =
            expr.map_err(|why| format!("'{text}': {why} (EXPR in n: + - * / ^, log2, log, sqrt)"))?;
        Ok(PseudoWork {
            series: series.trim().to_string(),
            expr,
            text: text.trim().to_string(),
        })
    }
}

impl PseudoWork {
    /// The points of its series in `apps` again, each with the formula's
    /// work for its calls in place of the work counted, as a series of
    /// their own named after the formula; where the formula gives no
    /// positive work at a size, that size is left out.
    pub fn points(&self, apps: &[AppPoint]) -> Vec<AppPoint> {
        let series = format!("{} ({})", self.series, self.text);
        (apps.iter())
            .filter_map(|a| {
                let s = a.sized.as_ref().filter(|s| s.series == self.series)?;
                let flops = self.expr.at(s.n) * s.calls as f64;
                (flops.is_finite() && flops > 0.0).then(|| AppPoint {
                    name: format!("{} ({})", a.name, self.text),
                    flops,
                    fma_flops: None,
                    mix: None,
                    advice: Vec::new(),
                    sized: Some(SizedRegion {
                        series: series.clone(),
                        ..s.clone()
                    }),
                    ..a.clone()
                })
            })
            .collect()
    }
}

/// `apps` and, for each of `work`, its series again with the formula's
/// work: an error naming the series there are where one is not.
pub fn with_work(mut apps: Vec<AppPoint>, work: &[PseudoWork]) -> Result<Vec<AppPoint>, String> {
    for w in work {
        let more = w.points(&apps);
        if more.is_empty() {
            return Err(format!(
                "--work {}={}: no sized region named {} in the apps file (series there: {})",
                w.series,
                w.text,
                w.series,
                series_in(&apps)
            ));
        }
        apps.extend(more);
    }
    Ok(apps)
}

/// The series of `apps`' sized regions, named for people.
pub fn series_in(apps: &[AppPoint]) -> String {
    let mut there: Vec<&str> = (apps.iter())
        .filter_map(|a| a.sized.as_ref().map(|s| s.series.as_str()))
        .collect();
    there.sort();
    there.dedup();
    match there.is_empty() {
        true => "none: mark one with carmbench_region_begin_n".to_string(),
        false => there.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, n: f64) -> f64 {
        text.parse::<PseudoWork>().unwrap().expr.at(n)
    }

    #[test]
    fn formulas_in_n_read_as_written() {
        assert_eq!(at("d=2*n", 1e5), 2e5);
        assert_eq!(at("f=5*n*log2(n)", 1024.0), 51200.0);
        assert_eq!(at("m=2*n^3", 10.0), 2000.0);
        assert_eq!(at("p=2^3^2", 0.0), 512.0);
        assert_eq!(at("q=-n^2 + 1e2", 3.0), 91.0);
        assert_eq!(at("r=(n+1)/2 - sqrt(n)", 9.0), 2.0);
        assert!((at("s=log(n)", std::f64::consts::E) - 1.0).abs() < 1e-12);
        assert_eq!(at("t=2.5e-1*n", 8.0), 2.0);
    }

    #[test]
    fn a_bad_formula_is_named_with_its_fault() {
        for (bad, says) in [
            ("2*n", "NAME=EXPR"),
            ("f=2*m", "'m' is neither n"),
            ("f=2*(n", "')' expected"),
            ("f=2 n", "after a whole formula"),
            ("f=", "ends where"),
            ("f=log2 n", "'(' expected"),
        ] {
            let e = bad.parse::<PseudoWork>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_series_gets_the_formulas_work_for_its_calls() {
        let p = AppPoint {
            sized: Some(SizedRegion {
                series: "daxpy".into(),
                n: 1e5,
                calls: 5,
            }),
            ..AppPoint::new("blas/daxpy n=100000", 1.1e6, 1.2e7, 1e-3)
        };
        let w: PseudoWork = "daxpy=2*n".parse().unwrap();
        let q = w.points(&[p.clone(), AppPoint::new("blas", 1.0, 1.0, 1.0)]);
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].flops, 1e6);
        assert_eq!(q[0].bytes, p.bytes);
        assert_eq!(q[0].sized.as_ref().unwrap().series, "daxpy (2*n)");
        assert_eq!(q[0].name, "blas/daxpy n=100000 (2*n)");
    }
}
