//! Errors of the command line with their exit codes: 2 for bad input, 1 for a failure
//! while running.

/// An error with its exit code: 2 for bad input, 1 for a failure while running.
pub(super) struct Failure {
    pub(super) code: u8,
    pub(super) error: anyhow::Error,
}

/// A failure caused by the input (exit code 2).
pub(super) fn bad_input(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 2,
        error: e.into(),
    }
}

/// A failure while running (exit code 1).
pub(super) fn failed(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 1,
        error: e.into(),
    }
}

/// Exit code 2 for run errors caused by the input (data files, splits, a malformed
/// runs.csv), 1 for the others.
pub(super) fn run_failure(e: crate::run::RunError) -> Failure {
    use crate::run::RunError;
    match e {
        RunError::Data { .. }
        | RunError::Split { .. }
        | RunError::Spec(_)
        | RunError::Folder(_)
        | RunError::Results(_) => bad_input(e),
        e => failed(e),
    }
}
