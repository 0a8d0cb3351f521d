//! Screen rules (docs/screen-rules.md): declarative patterns over regions of a
//! pane's screen or its title, the last-resort evidence for panes whose process
//! sends no hooks. Compiled once at manifest load; classification is a pure
//! function of the rules, the screen text and the title.

use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;
use unicode_width::UnicodeWidthStr;

mod phrase;
pub use phrase::Phrase;

/// A rule's pattern: checked when the manifest loads, compiled the first time a
/// pane needs it. Compiled automata are large, and most loaded rules (other
/// agents') are never used by the panes of a given server.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// Checks the syntax (the `regex` crate's) without compiling.
    fn parse(source: &str) -> Result<Pattern, String> {
        regex_syntax::Parser::new()
            .parse(source)
            .map_err(|e| e.to_string())?;
        Ok(Pattern {
            source: source.to_owned(),
            compiled: OnceLock::new(),
        })
    }

    fn is_match(&self, text: &str) -> bool {
        let compiled = self
            .compiled
            .get_or_init(|| match Regex::new(&self.source) {
                Ok(r) => Some(r),
                Err(e) => {
                    // Valid syntax the compiler still refuses (a size limit): the
                    // pattern never matches, and says so once.
                    log::warn!(
                        "screen rule pattern {:?} does not compile: {e}",
                        self.source
                    );
                    None
                },
            });
        compiled.as_ref().is_some_and(|r| r.is_match(text))
    }
}

/// What a winning rule says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenState {
    Working,
    Blocked,
    Idle,
    /// The agent says its turn was interrupted (Esc mid-turn): `idle`, never
    /// a finished turn, and read even while hooks keep the pane working,
    /// since agents fire no hook for it (docs/screen-rules.md#an-interrupted-turn-is-idle).
    Interrupted,
    /// The agent says it stopped at its plan's usage limit: `blocked` with
    /// attention `rate_limited`, read even while hooks keep the pane working
    /// (docs/screen-rules.md#a-usage-limit-is-rate-limited).
    RateLimited,
    /// Not a turn state (a transcript viewer, a picker): changes nothing but
    /// outranks lower rules.
    Hold,
}

impl ScreenState {
    fn parse(s: &str) -> Option<ScreenState> {
        Some(match s {
            "working" => ScreenState::Working,
            "blocked" => ScreenState::Blocked,
            "idle" => ScreenState::Idle,
            "interrupted" => ScreenState::Interrupted,
            "rate_limited" => ScreenState::RateLimited,
            "hold" => ScreenState::Hold,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ScreenState::Working => "working",
            ScreenState::Blocked => "blocked",
            ScreenState::Idle => "idle",
            ScreenState::Interrupted => "interrupted",
            ScreenState::RateLimited => "rate_limited",
            ScreenState::Hold => "hold",
        }
    }
}

/// Where a rule looks (docs/screen-rules.md#regions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Title,
    Screen,
    Bottom,
    Top,
    PromptBox,
    AbovePromptBox,
    AfterLastRule,
    AfterLastPrompt,
    BeforeCurrentPrompt,
    WithoutCurrentPrompt,
}

impl Region {
    fn parse(s: &str) -> Option<Region> {
        Some(match s {
            "title" => Region::Title,
            "screen" => Region::Screen,
            "bottom" => Region::Bottom,
            "top" => Region::Top,
            "prompt_box" => Region::PromptBox,
            "above_prompt_box" => Region::AbovePromptBox,
            "after_last_rule" => Region::AfterLastRule,
            "after_last_prompt" => Region::AfterLastPrompt,
            "before_current_prompt" => Region::BeforeCurrentPrompt,
            "without_current_prompt" => Region::WithoutCurrentPrompt,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Region::Title => "title",
            Region::Screen => "screen",
            Region::Bottom => "bottom",
            Region::Top => "top",
            Region::PromptBox => "prompt_box",
            Region::AbovePromptBox => "above_prompt_box",
            Region::AfterLastRule => "after_last_rule",
            Region::AfterLastPrompt => "after_last_prompt",
            Region::BeforeCurrentPrompt => "before_current_prompt",
            Region::WithoutCurrentPrompt => "without_current_prompt",
        }
    }
}

/// Default line limit of the bottom and top regions.
pub const DEFAULT_LINES: usize = 12;
/// The largest `lines` a rule may ask for.
pub const MAX_LINES: usize = 200;

/// A `[[screen]]` table as written.
#[derive(Debug, Clone, Deserialize)]
pub struct RuleSpec {
    pub id: Option<String>,
    pub state: Option<String>,
    pub region: Option<String>,
    pub lines: Option<i64>,
    #[serde(default)]
    pub regex: Vec<String>,
    #[serde(default)]
    pub phrase: Vec<String>,
    #[serde(default)]
    pub all: Vec<String>,
    #[serde(default)]
    pub not: Vec<String>,
    pub priority: Option<i64>,
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub state: ScreenState,
    pub region: Region,
    /// The line limit (bottom and top always have one).
    pub lines: Option<usize>,
    any: Vec<Pattern>,
    phrases: Vec<Phrase>,
    all: Vec<Pattern>,
    not: Vec<Pattern>,
    pub priority: i32,
}

impl Rule {
    /// Validates and compiles a rule (docs/screen-rules.md#rule-fields); the
    /// error names the rule.
    pub fn compile(spec: &RuleSpec) -> Result<Rule, String> {
        let id = spec
            .id
            .clone()
            .filter(|id| !id.trim().is_empty())
            .ok_or("[[screen]] rule without an id")?;
        let fail = |why: String| format!("[[screen]] '{id}': {why}");
        let state = spec
            .state
            .as_deref()
            .ok_or_else(|| fail("missing state".into()))
            .and_then(|s| ScreenState::parse(s).ok_or_else(|| fail(format!("bad state {s:?}"))))?;
        let region = match spec.region.as_deref() {
            None => Region::Bottom,
            Some(r) => Region::parse(r).ok_or_else(|| fail(format!("bad region {r:?}")))?,
        };
        let lines = match spec.lines {
            Some(_) if region == Region::Title => {
                return Err(fail("lines is not allowed with the title region".into()));
            },
            Some(n) if !(1..=MAX_LINES as i64).contains(&n) => {
                return Err(fail(format!("bad lines {n}: 1 to {MAX_LINES}")));
            },
            Some(n) => Some(n as usize),
            None if matches!(region, Region::Bottom | Region::Top) => Some(DEFAULT_LINES),
            None => None,
        };
        if spec.regex.is_empty() && spec.phrase.is_empty() && spec.all.is_empty() {
            return Err(fail(
                "needs at least one regex, phrase or all pattern".into(),
            ));
        }
        let compile = |patterns: &[String]| {
            patterns
                .iter()
                .map(|p| Pattern::parse(p).map_err(|e| fail(format!("bad regex {p:?}: {e}"))))
                .collect::<Result<Vec<_>, _>>()
        };
        let priority = spec.priority.unwrap_or(0);
        let priority =
            i32::try_from(priority).map_err(|_| fail(format!("bad priority {priority}")))?;
        let phrases = spec
            .phrase
            .iter()
            .map(|p| Phrase::parse(p).map_err(|e| fail(format!("bad phrase {p:?}: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rule {
            any: compile(&spec.regex)?,
            phrases,
            all: compile(&spec.all)?,
            not: compile(&spec.not)?,
            id,
            state,
            region,
            lines,
            priority,
        })
    }

    /// Whether the rule matches every screen: one empty `regex` and nothing
    /// else (the bundled `idle_fallback`). Its winning means that no sign
    /// matched.
    pub fn is_catch_all(&self) -> bool {
        self.any.len() == 1
            && self.any[0].source.is_empty()
            && self.phrases.is_empty()
            && self.all.is_empty()
            && self.not.is_empty()
    }

    /// The label of its region for explanations: `bottom(12)`, `title`.
    pub fn region_label(&self) -> String {
        match self.lines {
            Some(n) => format!("{}({n})", self.region.as_str()),
            None => self.region.as_str().to_owned(),
        }
    }

    /// Whether the rule matches the given region text, whose lines as wide
    /// as `width` columns are cut by the screen's right edge (0: none is;
    /// docs/screen-rules.md#which-rule-wins).
    pub fn matches_text(&self, text: &str, width: usize) -> bool {
        let any = self.any.is_empty() && self.phrases.is_empty()
            || self.any.iter().any(|r| r.is_match(text))
            || self.phrases.iter().any(|p| p.is_in(text, width));
        any && self.all.iter().all(|r| r.is_match(text))
            && !self.not.iter().any(|r| r.is_match(text))
    }

    /// Whether the rule matches this screen and title.
    pub fn matches(&self, view: &View<'_>) -> bool {
        let width = if self.region == Region::Title {
            0
        } else {
            view.width
        };
        self.matches_text(&view.region(self.region, self.lines), width)
    }
}

/// The inputs of classification: the screen's raw lines, its width and the
/// title.
#[derive(Debug, Clone)]
pub struct View<'a> {
    lines: Vec<&'a str>,
    title: &'a str,
    /// The screen's columns: a line this wide is cut by the right edge.
    width: usize,
}

impl<'a> View<'a> {
    /// A screen whose width is not known (a saved screen, a file): taken as
    /// that of its widest line.
    pub fn new(screen: &'a str, title: &'a str) -> View<'a> {
        let lines: Vec<&str> = screen.split('\n').collect();
        let width = lines
            .iter()
            .map(|l| l.trim_end().width())
            .max()
            .unwrap_or(0);
        View {
            lines,
            title,
            width,
        }
    }

    /// A live screen of `width` columns.
    pub fn with_width(screen: &'a str, title: &'a str, width: usize) -> View<'a> {
        View {
            width,
            ..View::new(screen, title)
        }
    }

    /// The text of a region (docs/screen-rules.md#regions): the slice of raw
    /// lines, each trimmed at the end, empty ones dropped, the last (`top`:
    /// first) `lines` kept, joined.
    pub fn region(&self, region: Region, lines: Option<usize>) -> String {
        let all = &self.lines[..];
        let slice: &[&str] = match region {
            Region::Title => return self.title.to_owned(),
            Region::Screen | Region::Bottom | Region::Top => all,
            Region::PromptBox => {
                let rules = rule_lines(all);
                if rules.len() < 2 {
                    &[]
                } else {
                    let start = rules[rules.len() - 2] + 1;
                    let end = rules[rules.len() - 1];
                    &all[start..end]
                }
            },
            Region::AbovePromptBox => {
                let rules = rule_lines(all);
                if rules.len() < 2 {
                    all
                } else {
                    &all[..rules[rules.len() - 2]]
                }
            },
            Region::AfterLastRule => match rule_lines(all).last() {
                Some(&at) => &all[at + 1..],
                None => all,
            },
            Region::AfterLastPrompt => match all.iter().rposition(|l| is_prompt_line(l)) {
                Some(at) => &all[at + 1..],
                None => all,
            },
            Region::BeforeCurrentPrompt => match current_prompt(all) {
                Some(at) => &all[..at],
                None => all,
            },
            Region::WithoutCurrentPrompt => match current_prompt(all) {
                Some(_) => &[],
                None => all,
            },
        };
        let kept: Vec<&str> = slice
            .iter()
            .map(|l| l.trim_end())
            .filter(|l| !l.is_empty())
            .collect();
        let kept = match (region, lines) {
            (Region::Top, Some(n)) => &kept[..kept.len().min(n)],
            (_, Some(n)) => &kept[kept.len().saturating_sub(n)..],
            (_, None) => &kept[..],
        };
        kept.join("\n")
    }
}

/// A horizontal rule line: after trimming it starts with `─`, and has at least
/// three of them or nothing but whitespace after them.
fn is_rule_line(line: &str) -> bool {
    let t = line.trim();
    let dashes = t.chars().take_while(|&c| c == '─').count();
    dashes > 0 && (dashes >= 3 || t.chars().skip(dashes).all(char::is_whitespace))
}

fn rule_lines(lines: &[&str]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_rule_line(l))
        .map(|(i, _)| i)
        .collect()
}

/// A Codex prompt line: exactly `›` or starting with `› `.
fn is_prompt_line(line: &str) -> bool {
    line == "›" || line.starts_with("› ")
}

/// The last prompt line, unless a response block (`•`, `■`, `✗`, `✓`) follows it.
fn current_prompt(lines: &[&str]) -> Option<usize> {
    let at = lines.iter().rposition(|l| is_prompt_line(l))?;
    let answered = lines[at + 1..]
        .iter()
        .any(|l| l.starts_with(['•', '■', '✗', '✓']));
    (!answered).then_some(at)
}

/// The winning rule of an ordered list (docs/screen-rules.md#which-rule-wins):
/// the first matching rule of the highest priority. Returns its index.
pub fn classify(rules: &[&Rule], view: &View<'_>) -> Option<usize> {
    let mut winner: Option<(usize, i32)> = None;
    for (i, rule) in rules.iter().enumerate() {
        if winner.is_some_and(|(_, p)| rule.priority <= p) {
            continue;
        }
        if rule.matches(view) {
            winner = Some((i, rule.priority));
        }
    }
    winner.map(|(i, _)| i)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod boxed_fixture {
    use super::*;

    /// Every region on the boxed fixture (docs/screen-rules.md#regions).
    #[test]
    fn every_region_on_the_boxed_fixture() {
        let screen = "old output\n────\nDo you want to proceed?\n✻ Waiting…\n────\n❯ fix it\n────\n? for shortcuts";
        let v = View::new(screen, "title text");
        assert_eq!(v.region(Region::PromptBox, None), "❯ fix it");
        assert_eq!(
            v.region(Region::AbovePromptBox, None),
            "old output\n────\nDo you want to proceed?\n✻ Waiting…"
        );
        assert_eq!(v.region(Region::AfterLastRule, None), "? for shortcuts");
        assert_eq!(v.region(Region::Bottom, Some(2)), "────\n? for shortcuts");
        assert_eq!(
            v.region(Region::Bottom, Some(3)),
            "❯ fix it\n────\n? for shortcuts"
        );
        assert_eq!(v.region(Region::Top, Some(2)), "old output\n────");
        assert_eq!(v.region(Region::Title, None), "title text");
        // No prompt line (Codex `›`): the prompt regions are the whole screen.
        assert_eq!(
            v.region(Region::AfterLastPrompt, None),
            v.region(Region::Screen, None)
        );
        assert_eq!(
            v.region(Region::WithoutCurrentPrompt, None),
            v.region(Region::Screen, None)
        );
        // Fewer than two rules: no prompt box, everything above it.
        let one_rule = View::new("a\n────\nb", "");
        assert_eq!(one_rule.region(Region::PromptBox, None), "");
        assert_eq!(one_rule.region(Region::AbovePromptBox, None), "a\n────\nb");
        assert!(!is_rule_line("──x"));
        let label = |region: &str, lines: Option<i64>| {
            let spec = RuleSpec {
                id: Some("r".into()),
                state: Some("idle".into()),
                region: Some(region.into()),
                lines,
                regex: vec![String::new()],
                phrase: vec![],
                all: vec![],
                not: vec![],
                priority: None,
            };
            Rule::compile(&spec).map(|r| r.region_label())
        };
        assert_eq!(label("top", None), Ok("top(12)".into()));
        assert_eq!(label("bottom", None), Ok("bottom(12)".into()));
        assert_eq!(
            label("above_prompt_box", Some(1)),
            Ok("above_prompt_box(1)".into())
        );
        assert_eq!(label("screen", None), Ok("screen".into()));
        assert_eq!(label("title", None), Ok("title".into()));
        assert!(label("bottom", Some(201)).is_err());
        // The title region ignores the screen.
        let title_rule = Rule::compile(&RuleSpec {
            id: Some("t".into()),
            state: Some("idle".into()),
            region: Some("title".into()),
            lines: None,
            regex: vec!["fix it".into()],
            phrase: vec![],
            all: vec![],
            not: vec![],
            priority: None,
        })
        .expect("valid");
        assert!(!title_rule.matches(&v));
    }
}
