//! Reading an effect: the file and its tables, flag rules, defs, module
//! folders, the names a source tests, and WESL packages. What is here turns
//! text into an [`Effect`](super::types::Effect) and the library's module
//! index; nothing is composed or created on a device.

pub(super) mod constraints;
pub(super) mod defs;
pub(super) mod file;
pub(super) mod load;
pub(super) mod module_files;
pub(super) mod modules;
pub(super) mod parse;
pub(super) mod sites;
pub(super) mod tested_names;
pub(super) mod wesl;
pub(super) mod with_defs;
