//! Reading a unit file back: its `key=value` entries by section, and the
//! words of its `ExecStart=` as systemd splits them. `signaltty service`
//! reads its own units with it, and the doctor the web view's address.

/// The `key=value` entries of a unit file, each with its section, in order.
/// Comments and blank lines are skipped; no continuation lines (ours have none).
pub fn parse_ini(text: &str) -> Vec<(String, String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
        } else if let Some((key, value)) = line.split_once('=') {
            out.push((
                section.clone(),
                key.trim().to_owned(),
                value.trim().to_owned(),
            ));
        }
    }
    out
}

/// The words of the `[Service]` `ExecStart=`, unquoted and unescaped (`%%`
/// and `$$` back to one): what `service install` wrote, read back.
pub fn exec_start_words(text: &str) -> Option<Vec<String>> {
    let value = parse_ini(text)
        .into_iter()
        .find(|(section, key, _)| section == "Service" && key == "ExecStart")?
        .2;
    let words = split_words(value.trim_start_matches(['@', '-', ':', '+', '!']))?;
    let words: Vec<String> = words
        .into_iter()
        .map(|w| w.replace("%%", "%").replace("$$", "$"))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// An ExecStart= value split into words, honouring double quotes and the
/// backslash escapes inside them; `None` when a quote is left open.
fn split_words(value: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(first) = chars.next() else {
            return Some(words);
        };
        let mut word = String::new();
        if first == '"' {
            loop {
                match chars.next()? {
                    '\\' => word.push(chars.next()?),
                    '"' => break,
                    c => word.push(c),
                }
            }
        } else {
            word.push(first);
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                word.push(c);
            }
        }
        words.push(word);
    }
}

/// Where the web view's unit (`signaltty-web.service`) listens: its
/// `ExecStart=`'s `--listen`, else `signaltty web`'s default.
pub fn web_listen(text: &str) -> String {
    let words = exec_start_words(text).unwrap_or_default();
    words
        .iter()
        .position(|w| w == "--listen")
        .and_then(|i| words.get(i + 1))
        .cloned()
        .unwrap_or_else(|| crate::web::DEFAULT_LISTEN.to_owned())
}
