//! The report in a real browser: Debian's chromium, headless, driven by
//! chromedriver over WebDriver. The page must load from a file with no
//! console error and no request leaving it, show every roof with its value,
//! draw its charts, fit a phone's width and keep its charts in print.

mod common;
use common::parts::Part;
use common::*;

use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A program on the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|f| f.is_file())
}

/// chromedriver on a free port, stopped when dropped, and one browser
/// session in a fresh profile.
struct Browser {
    driver: Child,
    base: String,
    session: String,
    _profile: PathBuf,
}

impl Browser {
    fn start(profile: PathBuf) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(on_path("chromedriver").unwrap())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let t0 = Instant::now();
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut b = Browser {
            driver,
            base,
            session: String::new(),
            _profile: profile.clone(),
        };
        // Without the background-networking flags chromium tries the
        // network at every start.
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": on_path("chromium").unwrap(),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update",
                         "--disable-sync", "--disable-quic", "--window-size=1280,1000",
                         format!("--user-data-dir={}", profile.display())],
            },
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
        }}});
        let v = b.post("/session", caps);
        b.session = v["sessionId"].as_str().unwrap().to_string();
        b
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut r = ureq::post(&url)
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        let v: Value = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
        v["value"].clone()
    }

    fn get(&self, path: &str) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut r = ureq::get(&url)
            .call()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let v: Value = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
        v["value"].clone()
    }

    fn run(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": []}))
    }

    fn log(&self, kind: &str) -> Vec<Value> {
        self.post("/se/log", json!({"type": kind}))
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Share of a PNG's pixels that are not white.
fn inked(png_bytes: &[u8]) -> f64 {
    let d = png::Decoder::new(png_bytes);
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks(px);
    let n = pixels.len() as f64;
    pixels
        .filter(|p| p.iter().take(3).any(|&c| c < 240))
        .count() as f64
        / n
}

/// The charts and the curve drawn: SVGs of real size, full of shapes,
/// each with tooltips.
fn the_charts_are_drawn_with_their_tooltips(b: &Browser) {
    let svgs = b.run(
        "return [...document.querySelectorAll('figure svg')].map(s => [s.getBoundingClientRect().width, s.querySelectorAll('polyline,path,line,circle').length, s.querySelectorAll('title').length])",
    );
    let svgs = svgs.as_array().unwrap();
    assert_eq!(
        svgs.len(),
        3,
        "the machine's CARM chart, the applications' and the memory curve"
    );
    a_row_marks_its_point_on_the_chart(b);
    for s in svgs {
        assert!(s[0].as_f64().unwrap() > 600.0, "{s}");
        assert!(
            s[1].as_u64().unwrap() > 50 && s[2].as_u64().unwrap() > 10,
            "{s}"
        );
    }
}

/// Pointing at a row of the tables marks its point on the chart.
fn a_row_marks_its_point_on_the_chart(b: &Browser) {
    let marked = b.run(
        "const r = document.querySelector('tr[data-point]'); r.dispatchEvent(new MouseEvent('mouseenter')); return [...document.querySelectorAll('circle[data-point]')].filter(c => c.getAttribute('stroke') === 'crimson').map(c => c.dataset.point).concat([r.dataset.point])",
    );
    let marked = marked.as_array().unwrap();
    assert!(
        marked.len() >= 2
            && marked[..marked.len() - 1]
                .iter()
                .all(|m| *m == marked[marked.len() - 1]),
        "{marked:?}"
    );
}

/// The function table sorts by the column clicked: by number, both ways,
/// and by text.
fn the_function_table_sorts_by_the_column_clicked(b: &Browser) {
    let order = |k: usize| {
        b.run(&format!(
            "document.querySelectorAll('table.functions th')[{k}].click(); return [...document.querySelectorAll('table.functions tbody tr')].map(r => r.cells[1].textContent)"
        ))
    };
    assert_eq!(
        order(7),
        json!(["rest", "kernel_a", "pack"]),
        "AI, highest first"
    );
    assert_eq!(
        order(7),
        json!(["pack", "kernel_a", "rest"]),
        "AI, lowest first"
    );
    assert_eq!(order(6), json!(["kernel_a", "pack", "rest"]), "samples");
    assert_eq!(
        order(1),
        json!(["rest", "pack", "kernel_a"]),
        "names, last first"
    );
}

/// Wait until the window is wider than `px`: it takes a new size in its own
/// time on a busy machine.
fn wait_for_width(b: &Browser, px: f64) {
    for _ in 0..50 {
        if b.run("return window.innerWidth").as_f64().unwrap_or(0.0) > px {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn the_report_loads_offline_shows_every_roof_and_draws_its_charts() {
    let dir = tmpdir("browser");
    let (html, doc, _) = rich_report(&dir);
    let b = Browser::start(dir.join("profile"));
    let url = format!("file://{}", html.display());
    b.post("/url", json!({ "url": url }));
    assert_eq!(b.run("return document.readyState"), "complete");
    // No console error; no request but the page itself.
    let errors: Vec<Value> = b
        .log("browser")
        .into_iter()
        .filter(|e| e["level"] == "SEVERE")
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    // The requests made for the page (the browser's own start page aside).
    let requests: Vec<String> = b
        .log("performance")
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok())
        .map(|m| m["message"].clone())
        .filter(|m| {
            m["method"] == "Network.requestWillBeSent" && m["params"]["documentURL"] == url.as_str()
        })
        .filter_map(|m| Some(m["params"]["request"]["url"].as_str()?.to_string()))
        .collect();
    assert_eq!(
        requests,
        std::slice::from_ref(&url),
        "only the page itself is requested"
    );
    // Every roof in the roofs table with its value.
    let cells = b.run(
        "return [...document.querySelectorAll('table.roofs tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))",
    );
    let rows = cells.as_array().unwrap();
    assert_eq!(rows.len(), doc.roofs.len());
    for (r, row) in doc.roofs.iter().zip(rows) {
        let unit = if r.level.is_some() { "GB/s" } else { "GFLOP/s" };
        assert_eq!(row[0], r.label().as_str());
        assert_eq!(
            row[3],
            format!("{:.1} {unit}", r.value()).as_str(),
            "{}",
            r.label()
        );
    }
    the_function_table_sorts_by_the_column_clicked(&b);
    the_charts_are_drawn_with_their_tooltips(&b);
    // A 1400-pixel window: every table fits the page, the functions' too,
    // without scrolling sideways.
    b.post("/window/rect", json!({"width": 1400, "height": 1000}));
    wait_for_width(&b, 1300.0);
    let wide = b.run(
        "return [...document.querySelectorAll('.scroll')].map(d => [d.scrollWidth, d.clientWidth, d.firstElementChild.className])",
    );
    for w in wide.as_array().unwrap() {
        assert!(
            w[0].as_f64().unwrap() <= w[1].as_f64().unwrap() + 1.0,
            "a table scrolls sideways in a 1400-pixel window: {w}"
        );
    }
    let shot = b.get("/screenshot");
    let png = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        shot.as_str().unwrap(),
    )
    .unwrap();
    let ink = inked(&png);
    assert!(ink > 0.05, "the screenshot is nearly blank: {ink}");
    // A phone's width: nothing wider than the screen but inside its own
    // scrolling box.
    b.post("/window/rect", json!({"width": 390, "height": 844}));
    let fits = b.run(
        "return [document.documentElement.scrollWidth, window.innerWidth, Math.max(...[...document.querySelectorAll('figure svg')].map(s => s.getBoundingClientRect().width))]",
    );
    let (scroll, inner, svg) = (
        fits[0].as_f64().unwrap(),
        fits[1].as_f64().unwrap(),
        fits[2].as_f64().unwrap(),
    );
    assert!(
        scroll <= inner + 1.0,
        "the page scrolls sideways at 390 px: {fits}"
    );
    assert!(svg <= inner && svg > 0.8 * inner - 40.0, "{fits}");
    // In print the charts stay: shown, at the page's width.
    b.post("/window/rect", json!({"width": 1280, "height": 1000}));
    wait_for_width(&b, 1000.0);
    b.post(
        "/goog/cdp/execute",
        json!({"cmd": "Emulation.setEmulatedMedia", "params": {"media": "print"}}),
    );
    let print = b.run(
        "return [matchMedia('print').matches, ...[...document.querySelectorAll('figure svg')].map(s => s.getBoundingClientRect().width)]",
    );
    assert_eq!(print[0], true, "{print}");
    assert!(
        print.as_array().unwrap()[1..]
            .iter()
            .all(|w| w.as_f64().unwrap() > 600.0),
        "{print}"
    );
    let pdf = b.post("/print", json!({}));
    let pdf = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        pdf.as_str().unwrap(),
    )
    .unwrap();
    assert!(
        pdf.starts_with(b"%PDF") && pdf.len() > 50_000,
        "{} bytes",
        pdf.len()
    );
    drop(b);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn main() -> std::process::ExitCode {
    common::parts::main(tests![
        (Part::Chromium) the_report_loads_offline_shows_every_roof_and_draws_its_charts,
    ])
}
