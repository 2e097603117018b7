//! Errors of caller-owned rows ([`crate::Rows`]).

use crate::slot::plan::Frequency;

/// What went wrong with a slot whose rows the application owns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowsErrorKind {
    /// The Rust row type is not as long as the block's row.
    #[error("a row of `{rust}` is {size} bytes, and the block's row is {block}")]
    Size {
        /// The Rust type.
        rust: &'static str,
        /// Its size.
        size: usize,
        /// The block's size, as registered now.
        block: u32,
    },
    /// A typed row lacks members of the block: the rows have one source.
    #[error("`{rust}` has no field for {}; a row is written whole", missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The Rust type.
        rust: &'static str,
        /// The members it lacks.
        missing: Vec<String>,
    },
    /// The array holds fewer rows than the list has positions.
    #[error("the array holds {len} rows, and the instance list {list}")]
    Short {
        /// Rows given.
        len: usize,
        /// Positions in the list.
        list: usize,
    },
    /// The list's instances are of another frequency than the slot's.
    #[error("the instance list holds {list} instances, and the slot is of {slot} frequency")]
    Frequency {
        /// The list's frequency.
        list: Frequency,
        /// The slot's.
        slot: Frequency,
    },
    /// A draw reads a row that no write has packed since the instance was
    /// made, the slot re-laid, the device recreated, or a flush failed.
    #[error(
        "the draw's {frequency} row {index} has not been written since it was made, re-laid or lost; write it (Manager::write_rows) and flush"
    )]
    Unwritten {
        /// The row's frequency.
        frequency: Frequency,
        /// Its dense index.
        index: u32,
    },
}
