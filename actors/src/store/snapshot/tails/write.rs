//! Writing the tails at a save: for each pane, nothing when its ring is
//! unchanged, an appended record of the new lines and the screen when it
//! fits, else the whole file rewritten (temp file, rename), within the
//! save's budget.

use super::*;
use crate::store::snapshot::file::write_private;

/// How a tail is to be brought up to date.
enum Export<'a> {
    Unchanged,
    /// It needs writing whole, which this save may not do any more.
    Deferred,
    /// A record of what is new, to append.
    Append(Record<'a>),
    Rewrite(Rewrite<'a>),
}

/// A tail file written anew.
enum Rewrite<'a> {
    /// The tail has no line: its file goes.
    Empty,
    /// A file of one record.
    Whole(Record<'a>),
}

/// What [`update`] did to a file.
enum Outcome {
    /// The file was current.
    Current,
    /// Left for the next save (past the budget).
    Deferred,
    /// Written.
    Updated(Updated),
}

/// A file written by [`update`].
struct Updated {
    mark: TailMark,
    /// The file's length, when a record may be appended to it.
    len: Option<u64>,
    /// A directory entry changed (rename, removal).
    entry: bool,
}

/// Brings every pane's tail file up to date (see the module header) within
/// `budget`, then prunes the tails of panes that are neither in `panes` nor
/// in `snapshot.panes`. Keeps going past a failing pane so one bad file does
/// not cost the others, and returns the first error with the report.
pub(in crate::store::snapshot) fn write_tails(
    state_dir: &Path,
    snapshot: &Snapshot,
    files: &mut TailFiles,
    panes: &[(PaneId, TailSlot)],
    budget: TailBudget,
) -> (TailReport, io::Result<()>) {
    let mut report = TailReport::default();
    let history = state_dir.join(HISTORY_DIR);
    if let Err(e) = ensure_dir(&history) {
        return (report, Err(e));
    }
    let TailFiles {
        files,
        scratch,
        cap,
    } = files;
    let cap = *cap;
    let mut first_error: Option<io::Error> = None;
    let mut renamed = false;
    // A pane not built yet has nothing to say; its file stays. One whose
    // ring is locked just now (its thread may have been preempted in a
    // reconcile on a busy machine) is visited after the others rather than
    // waited for first.
    let (mut free, mut busy): (Vec<_>, Vec<_>) = panes
        .iter()
        .filter_map(|(pane, slot)| slot.get().map(|(source, built)| (pane, source, built)))
        .partition(|(_, source, _)| !source.busy());
    // Tails with no file first: under a budget, new panes get theirs before
    // a flooding pane's compaction does (a stable sort keeps the order).
    free.sort_by_key(|(pane, _, _)| files.contains_key(*pane));
    busy.sort_by_key(|(pane, _, _)| files.contains_key(*pane));
    let started = Instant::now();
    let mut whole_bytes = 0;
    for (pane, source, built) in free.into_iter().chain(busy) {
        let known = match files.get(pane) {
            None => None,
            Some(Known::Restored) => Some((built, None)),
            Some(Known::At { mark, len }) => Some((*mark, *len)),
        };
        let may_rewrite = match budget {
            TailBudget::Everything => true,
            TailBudget::Within { bytes, time } => {
                let within = whole_bytes < bytes && started.elapsed() < time;
                if !within && source.busy() {
                    report.deferred += 1;
                    continue;
                }
                within
            },
        };
        let path = tail_path(state_dir, pane);
        let before = report.bytes;
        let updated = update(&path, source, known, may_rewrite, cap, scratch, &mut report);
        match updated {
            Ok(Outcome::Current) => {},
            Ok(Outcome::Deferred) => report.deferred += 1,
            Ok(Outcome::Updated(Updated { mark, len, entry })) => {
                if entry {
                    whole_bytes += report.bytes - before;
                }
                renamed |= entry;
                files.insert(pane.clone(), Known::At { mark, len });
            },
            Err(e) => {
                // Whatever is on disk now, only a whole rewrite may follow.
                if let Some(Known::At { len, .. }) = files.get_mut(pane) {
                    *len = None;
                }
                first_error.get_or_insert(e);
            },
        }
    }

    // A pane in the snapshot without a source (not registered any more, or
    // not yet) keeps the tail it had: it is still the newest context we have.
    let keep: HashSet<&PaneId> = panes
        .iter()
        .map(|(pane, _)| pane)
        .chain(snapshot.panes.iter().map(|p| &p.id))
        .collect();
    files.retain(|pane, _| keep.contains(pane));
    let keep: HashSet<String> = keep.into_iter().map(safe_id).collect();
    match prune(&history, &keep) {
        Ok(removed) => report.removed += removed,
        Err(e) => {
            first_error.get_or_insert(e);
        },
    }

    // Beyond the reference design, which synced nothing here
    // (docs/persistence.md#how-tails-are-written): one directory sync per save
    // makes the renames and removals above durable together, for the cost of
    // one call. Appends change no directory entry.
    if renamed || report.removed > 0 {
        let synced = sync_dir(&history);
        if let Err(e) = synced {
            first_error.get_or_insert(e);
        }
    }
    (report, first_error.map_or(Ok(()), Err))
}

/// Brings one tail file up to date from `source`, given what is known of it
/// (`(mark, appendable length)`), building the bytes in `scratch`, its tail
/// cut to `cap`; a file that needs writing whole is left as it is unless
/// `may_rewrite`.
fn update(
    path: &Path,
    source: &TailSource,
    mut known: Option<(TailMark, Option<u64>)>,
    may_rewrite: bool,
    cap: usize,
    scratch: &mut Vec<u8>,
    report: &mut TailReport,
) -> io::Result<Outcome> {
    // Twice at most: an append to a file that is not as this run left it
    // becomes a whole rewrite.
    loop {
        let since = known.map(|(mark, _)| mark);
        let len = known.and_then(|(_, len)| len);
        let room = len
            .map(|len| compact_at(cap).saturating_sub(usize::try_from(len).unwrap_or(usize::MAX)));
        let buf = &mut *scratch;
        let (mark, exported) = timed(source, report, move |view| {
            export(view, since.as_ref(), room, may_rewrite, cap, buf)
        });
        let rewrite = match exported {
            Export::Unchanged => return Ok(Outcome::Current),
            Export::Deferred => return Ok(Outcome::Deferred),
            Export::Append(record) => {
                let len = len.unwrap_or(0);
                match append(path, len, record.framed())? {
                    Some(new_len) => {
                        report.appended += 1;
                        report.bytes += new_len - len;
                        return Ok(Outcome::Updated(Updated {
                            mark,
                            len: Some(new_len),
                            entry: false,
                        }));
                    },
                    None => {
                        known = None;
                        continue;
                    },
                }
            },
            Export::Rewrite(rewrite) => rewrite,
        };
        let len = match rewrite {
            Rewrite::Empty => {
                remove_if_present(path)?;
                None
            },
            Rewrite::Whole(record) => {
                let bytes = record.whole_file();
                write_whole(path, bytes, since.is_none())?;
                report.whole += 1;
                report.bytes += bytes.len() as u64;
                Some(bytes.len() as u64)
            },
        };
        return Ok(Outcome::Updated(Updated {
            mark,
            len,
            entry: true,
        }));
    }
}

/// Runs `read` on the ring of `source`, counting the time in `report`.
fn timed<R>(
    source: &TailSource,
    report: &mut TailReport,
    read: impl FnOnce(&RingView<'_>) -> R,
) -> R {
    let started = Instant::now();
    let result = source.read(read);
    report.read += started.elapsed();
    result
}

/// What to write for a ring read now, after a file that holds it as of
/// `since` (none: nothing known) and may grow by `room` bytes (none: it may
/// not be appended to); a whole file only if `may_rewrite`, its tail cut to
/// `cap`. Runs under the ring's lock: it only copies lines.
fn export<'a>(
    view: &RingView<'_>,
    since: Option<&TailMark>,
    room: Option<usize>,
    may_rewrite: bool,
    cap: usize,
    buf: &'a mut Vec<u8>,
) -> (TailMark, Export<'a>) {
    let mark = view.mark();
    if since == Some(&mark) {
        return (mark, Export::Unchanged);
    }
    if let (Some(since), Some(room)) = (since, room)
        && let Some(new) = view.history_since(since)
        && readable(view) > 0
    {
        let held = view.history().len();
        let cost = screen_cost(view)
            + view
                .history_from(held - new)
                .map(|line| line.len() + 2)
                .sum::<usize>();
        // More than a tail's worth of new lines is cheaper rewritten.
        if cost <= room.min(cap) {
            let mut record = Record::new_in(buf, cost);
            view.history_from(held - new)
                .for_each(|line| record.history(line));
            screen_into(view, &mut record);
            return (mark, Export::Append(record));
        }
    }
    if !may_rewrite {
        return (mark, Export::Deferred);
    }
    (mark, Export::Rewrite(rewrite(view, cap, buf)))
}

/// The whole file for a ring: the newest history lines within a tail's
/// worth (`cap`), whatever the screen holds (so that records appended later
/// still find enough history before them), then the screen.
fn rewrite<'a>(view: &RingView<'_>, cap: usize, buf: &'a mut Vec<u8>) -> Rewrite<'a> {
    if readable(view) == 0 {
        return Rewrite::Empty;
    }
    let held = view.history().len();
    let (mut kept, mut used) = (0, 0);
    let mut cut_newest = None;
    for line in view.history().rev() {
        if used + line.len() + 1 > cap {
            // As in `tail_of`: a newest line over the cap keeps its end. It
            // then costs the whole cap, so no older line joins it on reading.
            if kept == 0 {
                cut_newest = Some(last_bytes(line, cap.saturating_sub(1)));
            }
            break;
        }
        used += line.len() + 1;
        kept += 1;
    }
    let mut record = Record::new_in(buf, used + kept + screen_cost(view));
    match cut_newest {
        Some(cut) => record.history(cut),
        None => view
            .history_from(held - kept)
            .for_each(|line| record.history(line)),
    }
    screen_into(view, &mut record);
    Rewrite::Whole(record)
}

/// How many lines a read of the ring sees (only the screen's on the
/// alternate screen).
fn readable(view: &RingView<'_>) -> usize {
    let history = if view.alt() { 0 } else { view.history().len() };
    history + view.content_rows().len()
}

/// The bytes of a record's screen block, near enough (its first line is
/// counted as 24).
fn screen_cost(view: &RingView<'_>) -> usize {
    24 + view.content_rows().map(|row| row.len() + 2).sum::<usize>()
}

/// The screen block of a record: which screen, the history held, the rows.
fn screen_into(view: &RingView<'_>, record: &mut Record) {
    record.screen(view.alt(), view.history().len());
    view.content_rows().for_each(|row| record.row(row));
}

/// Appends `bytes` to the tail at `path` if it is still `len` bytes long, as
/// this run left it; returns its new length, or `None` when it is missing or
/// has another length (it is then to be rewritten whole).
fn append(path: &Path, len: u64, bytes: &[u8]) -> io::Result<Option<u64>> {
    let mut file = match OpenOptions::new().append(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if file.metadata()?.len() != len {
        return Ok(None);
    }
    if let Err(e) = file.write_all(bytes) {
        // A full disk: the tail stays as it was, not cut mid-record.
        let _ = file.set_len(len);
        return Err(e);
    }
    Ok(Some(len + bytes.len() as u64))
}

/// Replaces the tail at `path` through `<path>.tmp`, so a reader sees either
/// the old tail or the new one, never half of one. Not synced file by file:
/// tails are best-effort context, 200 fsyncs would cost a second on a slow
/// disk, and the one directory sync of the save covers the renames.
///
/// A `fresh` tail (one this run knows nothing of) is written in place when
/// no file is there yet: there is no older tail to keep, and a new file cut
/// short by a crash reads as no tail (`tail_format::decode`), so the
/// rename is saved.
fn write_whole(path: &Path, bytes: &[u8], fresh: bool) -> io::Result<()> {
    if fresh {
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(mut file) => {
                let written = file.write_all(bytes);
                if written.is_err() {
                    // Half a new tail only holds space a full disk needs.
                    let _ = fs::remove_file(path);
                }
                return written;
            },
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {},
            Err(e) => return Err(e),
        }
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    if let Err(e) = write_private(&tmp, bytes) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path)
}

/// Removes `history/<id>.tail` (and a `.tail.tmp` left by a crashed save)
/// for every id not in `keep`, and returns how many went. Other files are
/// not ours and stay.
fn prune(history: &Path, keep: &HashSet<String>) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(history)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let id = name
            .strip_suffix(TAIL_SUFFIX)
            .or_else(|| name.strip_suffix(TMP_SUFFIX));
        if let Some(id) = id
            && !keep.contains(id)
        {
            remove_if_present(&entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
