//! What the library's long operations report: the pipelines
//! [`Effects::warm`](crate::Effects::warm) built and how far it is, and the
//! rules [`Effects::suggest_rules`](crate::Effects::suggest_rules) found.
//! Beside the methods' files, not in them, so that those files name what
//! the library's methods return without being named by them.

/// What [`Effects::warm`](crate::Effects::warm) built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmReport {
    /// Flag combinations warmed: every one the constraints allow, or the
    /// whole-effect check's sample of them (`exhaustive` false).
    pub permutations: usize,
    /// Whether those are every allowed combination.
    pub exhaustive: bool,
    /// Pipelines in the cache for them afterwards (one per pass that exists
    /// under a combination), built now or earlier.
    pub pipelines: usize,
}

/// How far [`Effects::warm_with`](crate::Effects::warm_with) is: pipelines built of those it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarmProgress {
    /// Pipelines built so far (failed ones included).
    pub done: usize,
    /// Pipelines to build: those the cache did not hold.
    pub total: usize,
}

/// A rule that excludes failing combinations and no combination that composes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuggestedRule {
    /// As the effect file writes it: `at_most_one = [["A", "B"]]`, or
    /// `implies.A = ["B"]`.
    pub rule: String,
    /// The failing combinations it excludes, each as its flags.
    pub excludes: Vec<Vec<String>>,
}

/// What [`Effects::suggest_rules`](crate::Effects::suggest_rules) found.
#[derive(Clone, Debug, Default)]
pub struct Suggestions {
    /// Combinations composed.
    pub checked: usize,
    /// Whether they were every one the rules allow (else the check's sample).
    pub exhaustive: bool,
    /// Each failing combination, as its flags, with its error on one line.
    pub failures: Vec<(Vec<String>, String)>,
    /// Rules that together exclude every failure they can, most first.
    pub rules: Vec<SuggestedRule>,
    /// Failures that no rule over one pair of flags excludes without also
    /// excluding a combination that composes (every failure, when none
    /// composes).
    pub unexplained: Vec<Vec<String>>,
}
