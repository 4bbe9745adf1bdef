//! The notebook's symbol and thread indexes: they load, and carry the corrected lines of
//! the source list.

use mdbook_kernlab::resolve::references::{Symbols, Threads};

fn repo_data(rel: &str) -> std::path::PathBuf {
    notebook_checks::repo().join("data/references").join(rel)
}

#[test]
fn symbols_from_the_book_index() {
    let s = Symbols::load(&repo_data("symbols.yaml")).unwrap();
    assert!(s.len() > 70);
    let l = s.link("_cpu_up", None).unwrap();
    assert_eq!(
        l.url,
        "https://elixir.bootlin.com/linux/v6.16.7/source/kernel/cpu.c#L1629"
    );
    assert_eq!(l.text, "_cpu_up()");
    let l = s.link("cache_bp_restore", Some("v7.3.4")).unwrap();
    assert_eq!(l.line, Some(760));
    // The corrected entries of the source list.
    assert_eq!(s.link("pat_bp_init", None).unwrap().line, Some(250));
    assert_eq!(s.link("mtrr_bp_init", None).unwrap().line, Some(559));
    // stop_machine() at its definition, not at the prototype in include/linux/stop_machine.h.
    let l = s.link("stop_machine", None).unwrap();
    assert_eq!(
        l.url,
        "https://elixir.bootlin.com/linux/v6.16.7/source/kernel/stop_machine.c#L623"
    );
    assert_eq!(
        s.link("stop_machine", Some("v7.3.4")).unwrap().line,
        Some(621)
    );
    // Its line in cpu.h moved within 6.16: only the line checked in 6.16.3 is recorded, so a
    // link without a version fails instead of pointing at a guess.
    assert!(s.link("suspend_enable_secondary_cpus", None).is_err());
    assert_eq!(
        s.link("suspend_enable_secondary_cpus", Some("v6.16.3"))
            .unwrap()
            .line,
        Some(157)
    );
    let err = s.link("pat_bt_init", None).unwrap_err();
    assert!(err.hint.unwrap().contains("pat_bp_init"));
    assert!(s.link("_cpu_up", Some("v2.6.32")).is_err());
}

#[test]
fn threads_from_the_book_index() {
    let t = Threads::load(&repo_data("threads.yaml")).unwrap();
    for key in [
        "chen-yu-2017",
        "saravana-2024",
        "t2-2026",
        "gross-2026",
        "fix-2026",
    ] {
        assert!(t.get(key).unwrap().url.starts_with("https://"), "{key}");
    }
    assert!(
        t.get("fix-2025")
            .unwrap_err()
            .hint
            .unwrap()
            .contains("fix-2026")
    );
}
