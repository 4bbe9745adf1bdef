//! Comparisons of small made-up logs, figures worked out by hand.
use super::*;
use crate::render::comparison::{WIDTH, render_comparison, wrap};

/// One deep suspend of a two-CPU machine: CPU1 takes `bringup_ms` to come up.
fn cycle(t: u32, bringup_ms: u32) -> String {
    let up = 100_000 + bringup_ms * 1000;
    format!(
        "[{t}.000000] PM: suspend entry (deep)\n\
         [{t}.100000] Enabling non-boot CPUs ...\n\
         [{t}.100000] smpboot: Booting Node 0 Processor 1 APIC 0x2\n\
         [{t}.{up:06}] CPU1 is up\n\
         [{t}.900000] PM: suspend exit\n"
    )
}

fn side(release: &str, bringups: &[u32]) -> Evidence {
    let mut log = format!(
        "[    0.000000] Linux version {release} (a@b) #1\n\
         [    0.000000] Command line: root=/dev/sda1 ro\n"
    );
    for (i, ms) in bringups.iter().enumerate() {
        log += &cycle(10 + 10 * i as u32, *ms);
    }
    Evidence::from_log(release, log.as_bytes()).unwrap()
}

#[test]
fn medians_ratio_and_verdict() {
    let before = side("7.3.4", &[500, 700, 600]);
    let after = side("7.3.4-fix", &[20, 10, 30]);
    let c = compare(&before, &after, 10.0);
    let phase = &c.rows[0];
    assert_eq!(phase.figure, Figure::BringupPhase);
    // The phase runs from Enabling (.100000) to CPU1 is up: the bring-up itself.
    let b = phase.before.unwrap();
    assert_eq!((b.n, b.median, b.min, b.max), (3, 600.0, 500.0, 700.0));
    assert_eq!(phase.after.unwrap().median, 20.0);
    assert!((phase.ratio.unwrap() - 20.0 / 600.0).abs() < 1e-9);
    assert_eq!(c.change, Change::Faster);
    assert!(
        c.verdict
            .starts_with("FASTER: bring-up phase median 600.000 ms before, 20.000 ms after"),
        "{}",
        c.verdict
    );
    // The suspend span is 900 ms in every cycle: the same within 10%.
    assert_eq!(c.rows[2].change, Change::Same);
    // The same kernel version and command line; only: one boot a side.
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(
        c.warnings[0].starts_with("BEFORE is one boot"),
        "{:?}",
        c.warnings
    );
    let text = render_comparison(&c);
    assert!(
        text.lines()
            .all(|l| crate::render::safe_text::display_width(l) <= WIDTH),
        "{text}"
    );
    assert!(text.ends_with(&wrap(&c.verdict, "verdict  ", "  ")));
}

#[test]
fn within_the_threshold_is_the_same_and_a_slower_side_is_told() {
    let before = side("7.3.4", &[100, 100, 100]);
    let c = compare(&before, &side("7.3.4-fix", &[105, 108, 104]), 10.0);
    assert_eq!(c.change, Change::Same, "{}", c.verdict);
    let c = compare(&before, &side("7.3.4-fix", &[150, 150, 150]), 10.0);
    assert_eq!(c.change, Change::Slower, "{}", c.verdict);
}

#[test]
fn few_cycles_another_kernel_and_a_loggers_times_are_warned_of() {
    let before = side("6.8.0-45-generic", &[500]);
    let journal = "\
Dec 01 03:10:53.141810 host kernel: Linux version 7.3.4-fix (a@b) #1
Dec 01 03:10:53.141810 host kernel: PM: suspend entry (deep)
Dec 01 03:10:53.141810 host kernel: Enabling non-boot CPUs ...
Dec 01 03:10:53.141900 host kernel: smpboot: Booting Node 0 Processor 1 APIC 0x1
Dec 01 03:10:53.142100 host kernel: CPU1 is up
Dec 01 03:10:53.142200 host kernel: PM: suspend exit
";
    let after = Evidence::from_log("journal.log", journal.as_bytes()).unwrap();
    let c = compare(&before, &after, 10.0);
    assert_eq!(c.change, Change::Unknown);
    assert_eq!(
        c.verdict,
        "UNKNOWN: nothing to compare: a side has no durations (a logger's times)"
    );
    let all = c.warnings.join("\n");
    assert!(all.contains("6.8.0-45-generic against 7.3.4-fix"), "{all}");
    assert!(
        all.contains("AFTER (journal.log) has a logger's times"),
        "{all}"
    );
    assert!(
        all.contains("BEFORE has 1 resumed cycle with a CPU bring-up"),
        "{all}"
    );
}

#[test]
fn several_boots_of_a_side_are_pooled() {
    let boots = [
        side("7.3.4", &[500]),
        side("7.3.4", &[700]),
        side("7.3.4", &[600]),
    ];
    let fixed = [side("7.3.4-fix", &[20, 10]), side("7.3.4-fix", &[30])];
    let before: Vec<&Evidence> = boots.iter().collect();
    let after: Vec<&Evidence> = fixed.iter().collect();
    let c = compare_sides(&before, &after, 10.0);
    let b = c.rows[0].before.unwrap();
    assert_eq!((b.n, b.median, b.min, b.max), (3, 600.0, 500.0, 700.0));
    assert_eq!(c.rows[0].after.unwrap().median, 20.0);
    assert_eq!(c.cycles, (3, 3));
    assert!(c.before.ends_with("(3 boots)"), "{}", c.before);
    // Three boots and three cycles a side: nothing to warn of.
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn no_wrapped_line_starts_with_a_mail_tag() {
    // Whatever the length of the text before it, a tag in untrusted text never starts a
    // line as b4 reads one (blanks, then a first word that begins with a letter or digit
    // and ends in a colon) or as git does (a token, blanks, a colon).
    for pad in 0..80 {
        let text = format!(
            "{} Tested-by: Forged <f@x> (cc: x) Cc: y {}/Reviewed-by: z {}Fixes: 1234abcd",
            "a".repeat(pad),
            "b".repeat(pad),
            "c".repeat(pad + 60)
        );
        let out = wrap(&text, "Tested    ", "          ");
        for line in out.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            let starts_word = first.chars().next().is_some_and(char::is_alphanumeric);
            assert!(
                !(starts_word && first.ends_with(':')),
                "b4 would read: {line}\n{out}"
            );
            let body = line.trim_start();
            let after = body.trim_start_matches(|c: char| c.is_alphanumeric() || c == '-');
            // git's blanks are ASCII: a no-break space ends its token.
            assert!(
                after.len() == body.len()
                    || !after.trim_start_matches([' ', '\t']).starts_with(':'),
                "git would read: {line}\n{out}"
            );
        }
    }
}
