//! With feature `metrics`, the life cycle emits every metric before it returns — also the ones
//! that are zero — checked with metrics-util's `DebuggingRecorder`.
#![cfg(feature = "metrics")]

use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use shutdown_runtime::observe::{
    LAST_SIGNAL_TO_EXIT_SECONDS, RETRIES_TOTAL, SIGNAL_TO_EXIT_SECONDS, TASKS_ABORTED_TOTAL,
    TASKS_DRAINED_TOTAL, TASKS_PANICKED_TOTAL,
};
use shutdown_runtime::{Budgets, RunConfig};

#[test]
fn every_metric_is_emitted_before_exit_even_when_zero() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder.install().unwrap();

    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt.block_on(
        RunConfig::new(Budgets::from_grace(Duration::from_millis(600)))
            .install_signals(false)
            .run(async {
                // one child drains, one is aborted at the budget (400 ms); no panic, no retry
                let wait = shutdown_runtime::wait_for_shutdown();
                shutdown_runtime::spawn(wait);
                shutdown_runtime::spawn_named("stuck", std::future::pending::<()>());
            }),
    );
    assert_eq!(outcome.report.aborted.len(), 1);

    let snapshot = snapshotter.snapshot().into_vec();
    let get = |name: &str| {
        snapshot
            .iter()
            .find(|(k, ..)| k.key().name() == name)
            .map(|(_, _, _, v)| v)
            .unwrap_or_else(|| panic!("metric {name} missing"))
    };
    assert_eq!(get(TASKS_DRAINED_TOTAL), &DebugValue::Counter(1));
    assert_eq!(get(TASKS_ABORTED_TOTAL), &DebugValue::Counter(1));
    assert_eq!(get(TASKS_PANICKED_TOTAL), &DebugValue::Counter(0));
    assert_eq!(get(RETRIES_TOTAL), &DebugValue::Counter(0));
    match get(SIGNAL_TO_EXIT_SECONDS) {
        DebugValue::Histogram(v) => {
            assert_eq!(v.len(), 1);
            let v = v.clone();
            assert!(v[0].into_inner() >= 0.4 && v[0].into_inner() < 5.0, "{v:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(get(LAST_SIGNAL_TO_EXIT_SECONDS), DebugValue::Gauge(g) if g.into_inner() >= 0.4)
    );

    shutdown_runtime::record_retry();
    let snapshot = snapshotter.snapshot().into_vec();
    let retries = snapshot
        .iter()
        .find(|(k, ..)| k.key().name() == RETRIES_TOTAL)
        .unwrap();
    assert_eq!(retries.3, DebugValue::Counter(1));
}
