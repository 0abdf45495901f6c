//! The toolkit's one duration grammar, checked at every place of the linter and the audit
//! that reads a duration: each text of `shutdown_duration::conformance::CASES` is accepted
//! with the same value, or rejected with an error located in the text, by the config
//! (`drain-budget`, `grace-period`), the audit's reading of `#[shutdown_runtime::main(grace)]`
//! (the macro's bound: at least 1 ms, tested against the same table in shutdown-macros), and
//! compose's `stop_grace_period`.

use shutdown_duration::conformance::CASES;
use shutdown_lint::audit::budgets::budgets_in_source;
use shutdown_lint::audit::deploy::compose::parse_compose;
use shutdown_lint::config::Config;
use std::time::Duration;

fn want(nanos: Option<u128>) -> Option<Duration> {
    nanos.map(|n| Duration::new((n / 1_000_000_000) as u64, (n % 1_000_000_000) as u32))
}

#[test]
fn config_keys_agree_with_the_table() {
    for case in CASES {
        for key in ["drain-budget", "grace-period"] {
            let text = format!("{key} = {:?}\n", case.text);
            let got = Config::from_toml_str(&text, "shutdown-lint.toml".as_ref());
            match (got, want(case.nanos)) {
                (Ok(c), Some(d)) => {
                    let v = if key == "drain-budget" {
                        c.drain_budget
                    } else {
                        c.grace_period
                    };
                    assert_eq!(v, Some(d), "{key} = {:?}", case.text);
                }
                (Err(e), None) => {
                    // located: the label lies inside the quoted value
                    let span = e.span.expect("a located error");
                    let value_start = key.len() + 3;
                    assert!(
                        span.offset() >= value_start
                            && span.offset() + span.len() <= value_start + case.text.len() + 2,
                        "{key} = {:?}: label at {span:?}",
                        case.text
                    );
                    assert!(e.message.contains(key), "{}", e.message);
                }
                (got, want) => panic!("{key} = {:?}: got {got:?}, want {want:?}", case.text),
            }
        }
    }
}

#[test]
fn thirty_sec_is_rejected_at_the_unit() {
    let text = "drain-budget = \"30sec\"\n";
    let e = Config::from_toml_str(text, "shutdown-lint.toml".as_ref()).unwrap_err();
    let span = e.span.unwrap();
    assert_eq!(&text[span.offset()..span.offset() + span.len()], "sec");
}

#[test]
fn audit_reads_the_main_attribute_like_the_macro() {
    for case in CASES {
        let src = format!(
            "#[shutdown_runtime::main(grace = {:?})]\nasync fn main() {{}}\n",
            case.text
        );
        let got: Vec<Duration> = budgets_in_source(&src, "src/main.rs".as_ref())
            .into_iter()
            .map(|b| b.duration)
            .collect();
        let want: Vec<Duration> = want(case.nanos.filter(|n| *n >= 1_000_000))
            .into_iter()
            .collect();
        assert_eq!(got, want, "grace = {:?}", case.text);
    }
}

#[test]
fn compose_stop_grace_period_agrees_with_the_table() {
    for case in CASES {
        let text = format!(
            "services:\n  api:\n    stop_grace_period: {:?}\n",
            case.text
        );
        let (targets, findings) = parse_compose("compose.yaml".as_ref(), &text);
        match want(case.nanos) {
            Some(d) => {
                assert_eq!(targets[0].grace, d, "{:?}", case.text);
                assert!(findings.is_empty(), "{:?}: {findings:?}", case.text);
            }
            None => {
                assert_eq!(findings.len(), 1, "{:?} was accepted", case.text);
                assert_eq!(findings[0].region.line, 3);
            }
        }
    }
}
