//! Headless Chromium for tests/e2e/html.rs: finding it (or failing with
//! how to install it), one bounded launch, which lines of its log are about
//! the page, and how much ink a screenshot holds.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Seconds one Chromium launch may take before the test gives up on it.
const CHROMIUM_TIMEOUT_S: &str = "120";

/// Chromium on PATH, or a panic that says how to install it.
pub fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "chromium is not installed: run `make deps` (scripts/ensure-chromium.sh installs Debian's chromium) and run the test again"
            )
        })
}

/// One headless launch on `page` with `extra` flags (`--dump-dom`,
/// `--screenshot=…`), bounded by `timeout`; asserts it exited 0.
pub fn headless(profile: &Path, page: &Path, extra: &[&str]) -> Output {
    // Chromium takes a CPU while it renders: a test that measures waits.
    let _share = crate::common::machine::share();
    let url = format!("file://{}", page.display());
    let out = Command::new("timeout")
        .args(["--kill-after=5", CHROMIUM_TIMEOUT_S])
        .arg(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium under timeout");
    assert!(
        out.status.success(),
        "chromium {extra:?} {url} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The lines of Chromium's log that are about the page: console messages
/// (script errors, failed loads), uncaught exceptions, failed network loads,
/// and an `ERROR:` that names the page's file or a crash. Chromium's own
/// subsystems log `ERROR:` lines in a container without a session bus or a
/// GPU (`dbus/`, `gpu/`, the compositor's "Frame latency is negative" on a
/// loaded machine, …); none of them is about the page, and a list of them
/// would never be complete.
pub fn page_problems(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| {
            let about_page = line.contains("file://") || line.to_lowercase().contains("crash");
            line.contains("CONSOLE")
                || line.contains("Uncaught")
                || line.contains("net::ERR_")
                || (line.contains("ERROR:") && about_page)
        })
        .collect()
}

#[test]
fn the_console_filter_keeps_page_errors_and_drops_chromium_noise() {
    // Lines Chromium 156 printed here for a page with a script error.
    let log = r#"/usr/bin/chromium: 9: [: 25276502016: unexpected operator
[4591:4621:1201/124824.258547:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory
[4634:4634:1201/124824.277355:WARNING:media/gpu/vaapi/vaapi_wrapper.cc:1655] drmGetDevices2() has not found any devices
[4591:4591:1201/124824.371711:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner: object_path= /org/freedesktop/DBus: unknown error type:
[2413:2437:1201/143116.784077:ERROR:components/viz/service/display/display.cc:271] Frame latency is negative: -0.219 ms
[4591:4591:1201/124824.601430:INFO:CONSOLE:1] "boom", source: file:///tmp/bad.html (1)
[4591:4591:1201/124824.601473:INFO:CONSOLE:1] "Uncaught ReferenceError: undefinedFn is not defined", source: file:///tmp/bad.html (1)
[1:1:1201/124824.7:ERROR:content/browser/renderer_host/render_frame_host_impl.cc:1] page crashed
[1:1:1201/124824.8:ERROR:content/browser/loader/loader.cc:1] cannot read file:///tmp/missing.svg"#;
    let problems = page_problems(log);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].contains("\"boom\""));
    assert!(problems[2].contains("page crashed"));
    assert!(problems[3].contains("missing.svg"));
}

/// Share of pixels that are not near-white, and the count of distinct colours.
pub fn ink(png_path: &Path) -> (f64, usize) {
    let bytes = std::fs::read(png_path).expect("the screenshot");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let samples = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let mut colours = HashSet::new();
    let (mut inked, mut total) = (0usize, 0usize);
    for p in pixels.chunks_exact(samples) {
        let rgb = if samples >= 3 {
            (p[0], p[1], p[2])
        } else {
            (p[0], p[0], p[0])
        };
        total += 1;
        if rgb.0 < 235 || rgb.1 < 235 || rgb.2 < 235 {
            inked += 1;
        }
        colours.insert(rgb);
    }
    (inked as f64 / total.max(1) as f64, colours.len())
}
