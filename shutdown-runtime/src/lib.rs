//! Graceful shutdown for tokio services (work in progress; see `docs/ARCHITECTURE.md`).
