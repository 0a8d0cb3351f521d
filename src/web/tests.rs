use super::*;

/// The modules a Dense1x2 drawing shows, dark as true, row by row.
fn modules(drawn: &str) -> Vec<Vec<bool>> {
    let mut rows = Vec::new();
    for line in drawn.lines() {
        let (mut top, mut bottom) = (Vec::new(), Vec::new());
        for ch in line.chars() {
            let (t, b) = match ch {
                '█' => (true, true),
                '▀' => (true, false),
                '▄' => (false, true),
                _ => (false, false),
            };
            top.push(t);
            bottom.push(b);
        }
        rows.push(top);
        rows.push(bottom);
    }
    rows
}

#[test]
fn the_pairing_qr_code_shows_the_links_modules_dark_on_light() {
    let url = "http://127.0.0.1:7681/pair?code=0123456789abcdef0123456789abcdef";
    let plain = qr_text(url, false).expect("a code");
    let painted = qr_text(url, true).expect("a code");
    // Painted, every line is black on white and nothing else changes.
    for (p, l) in painted.lines().zip(plain.lines()) {
        assert_eq!(p, format!("\x1b[38;5;16;48;5;231m{l}\x1b[0m"));
    }
    assert_eq!(painted.lines().count(), plain.lines().count());
    // The blocks are the code's dark modules, inside a light quiet zone.
    let code = qrcode::QrCode::new(url.as_bytes()).expect("a code");
    let width = code.width();
    let colours = code.to_colors();
    let shown = modules(&plain);
    let quiet = 4;
    for y in 0..width {
        for x in 0..width {
            let dark = colours[y * width + x] == qrcode::Color::Dark;
            assert_eq!(shown[y + quiet][x + quiet], dark, "module {x},{y}");
        }
    }
    assert!(
        shown[..quiet].iter().flatten().all(|d| !d),
        "a light quiet zone"
    );
}
