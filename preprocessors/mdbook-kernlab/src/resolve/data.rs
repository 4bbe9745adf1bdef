//! Access to the book's data files: safe paths, and each file read and analysed once.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use globset::Glob;
use kernlog::Analysis;
use kernlog::render::document::Document;
use serde_json::Value;
use walkdir::WalkDir;

use crate::error::{Failure, Outcome, fail};

/// The data directory of a book, with caches for one preprocessor run, shared by the
/// threads that render directives. Each file is read, parsed or analysed once: a thread
/// that needs an entry another thread is computing waits for it (the map's lock is never
/// held while a file is read or analysed, only the entry's).
pub struct DataStore {
    dir: PathBuf,
    texts: Cache<String>,
    analyses: Cache<Analysis>,
    documents: Cache<Value>,
    /// Every file below `dir`, relative and sorted, listed on the first glob.
    files: OnceLock<Vec<String>>,
}

/// One entry per file: computed once, by the first thread that asks, failures included.
type Slot<T> = Arc<OnceLock<Outcome<Arc<T>>>>;
type Cache<T> = Mutex<HashMap<PathBuf, Slot<T>>>;

/// The cached value for `path`, or `make`'s result, which is then cached.
fn cached<T>(
    cache: &Cache<T>,
    path: PathBuf,
    make: impl FnOnce() -> Outcome<T>,
) -> Outcome<Arc<T>> {
    // A thread that panicked while holding the lock left the map as it was: keep using it.
    let slot = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(path)
        .or_default()
        .clone();
    slot.get_or_init(|| make().map(Arc::new)).clone()
}

/// The largest file read whole (`source:`, `FILE@/regex/`, small captures): larger ones
/// are refused before any allocation. Logs shown or analysed are read as a stream.
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// The largest YAML or JSON file parsed into a document: a parsed document takes tens of
/// times its size in memory.
pub const MAX_DOCUMENT_BYTES: u64 = 4 << 20;

/// A refusal of `rel`, `size` bytes, for being over `cap`.
fn too_large(rel: &str, size: u64, cap: u64, what: &str) -> Failure {
    fail(
        format!(
            "`{rel}` is {} MiB, more than the {} MiB a {what} may have",
            size.div_ceil(1 << 20),
            cap >> 20
        ),
        "keep in the data directory only the part the book shows or computes from (cut the capture with `sed -n 'A,Bp'`, or keep the fields in a smaller file)",
    )
}

/// The largest file that is tried as a small capture before it is read as a log.
const CAPTURE_MAX_BYTES: u64 = 1 << 20;

impl DataStore {
    /// `dir` must exist; it is canonicalised so that symlinks cannot lead out of it.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        Ok(DataStore {
            dir: dir.canonicalize()?,
            texts: Mutex::default(),
            analyses: Mutex::default(),
            documents: Mutex::default(),
            files: OnceLock::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A path relative to the data directory, checked to stay inside it.
    pub fn resolve(&self, rel: &str) -> Outcome<PathBuf> {
        let path = Path::new(rel);
        let inside = !rel.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(fail(
                format!("`{rel}` is not a path inside the data directory"),
                "write paths relative to the data directory, without `..` or a leading `/`",
            ));
        }
        let full = self.dir.join(path);
        let canonical = full.canonicalize().map_err(|e| {
            fail(
                format!("cannot open `{rel}`: {e}"),
                format!("data paths are relative to {}", self.dir.display()),
            )
        })?;
        if !canonical.starts_with(&self.dir) {
            return Err(fail(
                format!("`{rel}` leads outside the data directory"),
                "a symbolic link points out of the book; copy the file into the data directory",
            ));
        }
        // A FIFO, a device or a socket would block the build or never end: only regular
        // files (the link already followed) are data.
        let kind = std::fs::metadata(&canonical)
            .map_err(|e| fail(format!("cannot open `{rel}`: {e}"), "check the file"))?
            .file_type();
        if !kind.is_file() {
            return Err(fail(
                format!(
                    "`{rel}` is not a regular file (a {})",
                    if kind.is_dir() {
                        "folder"
                    } else {
                        "FIFO, device or socket"
                    }
                ),
                "data directives read files; save the capture to a file in the data directory",
            ));
        }
        Ok(canonical)
    }

    /// The text of a data file.
    pub fn text(&self, rel: &str) -> Outcome<Arc<String>> {
        let path = self.resolve(rel)?;
        cached(&self.texts, path.clone(), || {
            let unreadable = |e: std::io::Error| Failure::new(format!("cannot read `{rel}`: {e}"));
            let file = std::fs::File::open(&path).map_err(unreadable)?;
            let size = file.metadata().map_err(unreadable)?.len();
            if size > MAX_READ_BYTES {
                return Err(too_large(rel, size, MAX_READ_BYTES, "file read whole"));
            }
            // The file may grow after the check: read one byte past the cap at the most.
            let mut bytes = Vec::with_capacity(size as usize);
            std::io::Read::read_to_end(
                &mut std::io::Read::take(file, MAX_READ_BYTES + 1),
                &mut bytes,
            )
            .map_err(unreadable)?;
            if bytes.len() as u64 > MAX_READ_BYTES {
                return Err(too_large(
                    rel,
                    bytes.len() as u64,
                    MAX_READ_BYTES,
                    "file read whole",
                ));
            }
            // Valid UTF-8 (the usual case) is taken as it is, without a second copy.
            Ok(String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        })
    }

    /// kernlog's analysis of a log file, read as a stream: the text of a large log is
    /// never held in memory for it.
    pub fn analysis(&self, rel: &str) -> Outcome<Arc<Analysis>> {
        let path = self.resolve(rel)?;
        cached(&self.analyses, path.clone(), || {
            let file = std::fs::File::open(&path)
                .map_err(|e| Failure::new(format!("cannot read `{rel}`: {e}")))?;
            kernlog::analyze(std::io::BufReader::with_capacity(256 * 1024, file))
                .map_err(|e| Failure::new(format!("cannot read `{rel}`: {e}")))
        })
    }

    /// True for files small enough to be one of the small captures (sysfs dumps, `time`
    /// runs, histograms...): larger files are logs, analysed as a stream.
    fn may_be_capture(path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|m| m.len() <= CAPTURE_MAX_BYTES)
    }

    /// A file as a JSON document: YAML and JSON files as they are, logs as kernlog's
    /// report (the schema of `kernlog analyze --json`).
    pub fn document(&self, rel: &str) -> Outcome<Arc<Value>> {
        let path = self.resolve(rel)?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let extension = extension.to_string();
        let path_for_size = path.clone();
        cached(&self.documents, path, || {
            if matches!(extension.as_str(), "yaml" | "yml" | "json")
                && let Ok(meta) = std::fs::metadata(&path_for_size)
                && meta.len() > MAX_DOCUMENT_BYTES
            {
                return Err(too_large(
                    rel,
                    meta.len(),
                    MAX_DOCUMENT_BYTES,
                    "YAML or JSON data file",
                ));
            }
            Ok(match extension.as_str() {
                "yaml" | "yml" => {
                    let text = self.text(rel)?;
                    kernlog::parse::yaml::from_str::<Value>(&text).map_err(|e| {
                        let at = e.location().map_or(String::new(), |l| {
                            format!(" (line {}, column {})", l.line, l.column)
                        });
                        fail(
                            format!("`{rel}` is not valid YAML{at}: {}", crate::error::short(&e)),
                            if at.is_empty() {
                                "the whole file is at fault: aliases (`*name`) that expand too far, or a file that is not YAML"
                            } else {
                                "fix the data file at that line"
                            },
                        )
                    })?
                }
                "json" => {
                    let text = self.text(rel)?;
                    serde_json::from_str::<Value>(&text).map_err(|e| {
                        fail(
                            format!("`{rel}` is not valid JSON: {}", crate::error::short(&e)),
                            "fix the data file; the message gives its line and column",
                        )
                    })?
                }
                _ => match Self::may_be_capture(&path_for_size)
                    .then(|| self.text(rel))
                    .transpose()?
                    .and_then(|text| capture_document(&text))
                {
                    Some(doc) => doc,
                    None => {
                        let analysis = self.analysis(rel)?;
                        serde_json::to_value(Document::new(&analysis))
                            .map_err(|e| Failure::new(format!("cannot represent `{rel}`: {e}")))?
                    }
                },
            })
        })
    }

    /// The files a path names, relative to the data directory, sorted; at least one. A path
    /// that names a file is that file, whatever characters its name holds (`run[1].log` is
    /// `run[1].log`, never `run1.log`); otherwise `*` (any characters) and `?` (one) make
    /// it a pattern, and every other character, brackets and braces too, is literal.
    pub fn glob(&self, pattern: &str) -> Outcome<Vec<String>> {
        let names_a_file = self.dir.join(pattern).is_file();
        if names_a_file || !pattern.contains(['*', '?']) {
            self.resolve(pattern)?;
            return Ok(vec![pattern.to_string()]);
        }
        self.resolve_parent_of_glob(pattern)?;
        let wildcards_only: String = pattern
            .split_inclusive(['*', '?'])
            .map(|part| match part.strip_suffix(['*', '?']) {
                Some(literal) => format!("{}{}", globset::escape(literal), &part[literal.len()..]),
                None => globset::escape(part),
            })
            .collect();
        let matcher = Glob::new(&wildcards_only)
            .map_err(|e| fail(format!("bad glob `{pattern}`: {e}"), "use * and ?"))?
            .compile_matcher();
        let files: Vec<String> = self
            .files()
            .iter()
            .filter(|rel| matcher.is_match(rel.as_str()))
            .cloned()
            .collect();
        if files.is_empty() {
            return Err(fail(
                format!("no data file matches `{pattern}`"),
                "check the pattern against the files in the data directory",
            ));
        }
        Ok(files)
    }

    fn files(&self) -> &[String] {
        self.files.get_or_init(|| {
            let mut files: Vec<String> = WalkDir::new(&self.dir)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| Some(e.path().strip_prefix(&self.dir).ok()?.to_str()?.to_string()))
                .collect();
            files.sort();
            files
        })
    }

    fn resolve_parent_of_glob(&self, pattern: &str) -> Outcome<()> {
        if pattern.starts_with('/') || pattern.split('/').any(|c| c == "..") {
            return Err(fail(
                format!("`{pattern}` is not a path inside the data directory"),
                "write paths relative to the data directory, without `..` or a leading `/`",
            ));
        }
        Ok(())
    }
}

/// The small captures as JSON documents, recognised by their shape:
///
/// * `grep .` sysfs dumps: nested objects along the path, e.g.
///   `#/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq` (numbers where they parse);
/// * shell `time` runs: `{"runs": [{"output", "real_s", "user_s", "sys_s"}]}`;
/// * `< BOUND : COUNT` histograms: `{"buckets": [[bound, count]], "total"}`;
/// * `git bisect log`: `{"terms", "steps": [{"term", "commit", "subject"}], "first"}`;
/// * `diff -y` of call counts: `{"rows": [{"name", "left", "right", "difference"}]}`
///   (difference: absolute, null where a function is on one side only);
/// * `uniq -c` call counts: `{"counts": [{"name", "count"}]}`.
///
/// Anything else is a log, read through kernlog's report.
fn capture_document(text: &str) -> Option<Value> {
    use kernlog::parse::tool_output;
    if let Ok(entries) = tool_output::parse_sysfs(text) {
        let mut root = serde_json::Map::new();
        for (path, value) in entries {
            let mut node = &mut root;
            let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
            let (last, dirs) = parts.split_last()?;
            for dir in dirs {
                node = node
                    .entry(dir.to_string())
                    .or_insert_with(|| Value::Object(serde_json::Map::new()))
                    .as_object_mut()?;
            }
            let value = match value.parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => Value::from(value),
            };
            node.insert(last.to_string(), value);
        }
        return Some(Value::Object(root));
    }
    if text.lines().any(|l| l.trim_start().starts_with("real "))
        && let Ok(runs) = tool_output::parse_timed_runs(text)
        && !runs.is_empty()
    {
        return Some(serde_json::json!({ "runs": runs }));
    }
    if let Ok(h) = tool_output::parse_bucket_histogram(text)
        && !h.buckets.is_empty()
    {
        return serde_json::to_value(h).ok();
    }
    let diff_like = text.lines().any(|l| {
        let l = l.trim();
        l.contains(" | ") || l.ends_with('<') || l.starts_with('>')
    });
    if diff_like && let Ok(rows) = tool_output::parse_count_diff(text) {
        let rows: Vec<Value> = rows
            .iter()
            .map(|r| {
                let side = |s: &Option<(u64, String)>| s.as_ref().map(|(c, _)| *c);
                let name = r.left.as_ref().or(r.right.as_ref()).map(|(_, n)| n.clone());
                let difference = match (side(&r.left), side(&r.right)) {
                    (Some(a), Some(b)) => Some(b as i64 - a as i64),
                    _ => None,
                };
                serde_json::json!({
                    "name": name,
                    "left": side(&r.left),
                    "right": side(&r.right),
                    "difference": difference.map(i64::abs),
                })
            })
            .collect();
        return Some(serde_json::json!({ "rows": rows }));
    }
    if let Ok(counts) = tool_output::parse_counts(text)
        && !counts.is_empty()
    {
        let counts: Vec<Value> = counts
            .into_iter()
            .map(|(count, name)| serde_json::json!({ "name": name, "count": count }))
            .collect();
        return Some(serde_json::json!({ "counts": counts }));
    }
    if text.trim_start().starts_with("git bisect")
        && let Ok(log) = tool_output::parse_bisect_log(text)
    {
        return serde_json::to_value(log).ok();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data/sub")).unwrap();
        let fifo = dir.path().join("data/pipe.log");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let store = DataStore::new(&dir.path().join("data")).unwrap();
        // Reading a FIFO would block the build for ever; it is refused before any read.
        if made.is_ok_and(|s| s.success()) {
            let err = store.text("pipe.log").unwrap_err();
            assert!(err.message.contains("not a regular file"), "{err:?}");
        }
        let err = store.text("sub").unwrap_err();
        assert!(err.message.contains("a folder"), "{err:?}");
    }

    #[test]
    fn large_files_are_refused_before_they_are_read_and_each_file_is_parsed_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        // Sparse files: the sizes are real, the disk holds nothing.
        let big = std::fs::File::create(dir.path().join("data/big.log")).unwrap();
        big.set_len(MAX_READ_BYTES + 1).unwrap();
        let doc = std::fs::File::create(dir.path().join("data/big.json")).unwrap();
        doc.set_len(MAX_DOCUMENT_BYTES + 1).unwrap();
        let store = DataStore::new(&dir.path().join("data")).unwrap();
        let e = store.text("big.log").unwrap_err();
        assert_eq!(
            e.message,
            "`big.log` is 65 MiB, more than the 64 MiB a file read whole may have"
        );
        assert!(e.hint.unwrap().contains("sed -n"));
        let e = store.document("big.json").unwrap_err();
        assert_eq!(
            e.message,
            "`big.json` is 5 MiB, more than the 4 MiB a YAML or JSON data file may have"
        );
        // Eight threads asking for the same document share one parse.
        std::fs::write(dir.path().join("data/d.json"), r#"{"x": [1, 2, 3]}"#).unwrap();
        let docs: Vec<Arc<Value>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| store.document("d.json").unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(
            docs.iter().all(|d| Arc::ptr_eq(d, &docs[0])),
            "one parse, shared"
        );
    }

    #[test]
    fn paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("data/a.log"), "[    1.000000] x\n").unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        let store = DataStore::new(&dir.path().join("data")).unwrap();
        assert!(store.text("a.log").is_ok());
        for bad in ["../secret", "/etc/passwd", "", "a/../../secret"] {
            let err = store.text(bad).unwrap_err();
            assert!(err.message.contains("not a path inside"), "{bad}: {err:?}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret"), dir.path().join("data/link"))
                .unwrap();
            let err = store.text("link").unwrap_err();
            assert!(err.message.contains("leads outside"), "{err:?}");
        }
        assert!(
            store
                .text("missing.log")
                .unwrap_err()
                .message
                .contains("cannot open")
        );
        assert_eq!(store.glob("*.log").unwrap(), ["a.log"]);
        // Brackets in a real file name are literal, and in a pattern too.
        std::fs::write(dir.path().join("data/run1.log"), "[    1.000000] 1\n").unwrap();
        assert!(
            store.glob("run[1].log").is_err(),
            "no such file, and no pattern"
        );
        std::fs::write(dir.path().join("data/run[1].log"), "[    1.000000] [1]\n").unwrap();
        let store = DataStore::new(&dir.path().join("data")).unwrap();
        assert_eq!(store.glob("run[1].log").unwrap(), ["run[1].log"]);
        assert_eq!(store.glob("run[*].log").unwrap(), ["run[1].log"]);
        assert_eq!(store.glob("run?.log").unwrap(), ["run1.log"]);
        assert_eq!(store.glob("run*.log").unwrap(), ["run1.log", "run[1].log"]);
        assert!(store.glob("*.none").is_err());
        assert!(store.glob("../*").is_err());
        std::fs::write(
            dir.path().join("data/s.txt"),
            "/sys/a/b:3400000\n/sys/a/c:performance\n",
        )
        .unwrap();
        let doc = store.document("s.txt").unwrap();
        assert_eq!(doc.pointer("/sys/a/b"), Some(&Value::from(3_400_000)));
        assert_eq!(doc.pointer("/sys/a/c"), Some(&Value::from("performance")));
        std::fs::write(
            dir.path().join("data/t.txt"),
            "42\nreal 0m2.190s\nuser 0m0.1s\nsys 0m1.9s\n",
        )
        .unwrap();
        assert_eq!(
            store.document("t.txt").unwrap().pointer("/runs/0/real_s"),
            Some(&Value::from(2.19))
        );
    }
}
