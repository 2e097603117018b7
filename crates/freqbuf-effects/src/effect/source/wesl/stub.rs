//! Without the `wesl` feature: the types the rest of the layer names, with
//! no values (`load.rs` refuses a WESL source by name).

use std::sync::Arc;

use naga_oil::compose::ShaderDefValue;

use crate::effect::source::sites::Sites;
use crate::effect::types::Bits;
use crate::error::EffectError;

/// No packages without WESL.
#[derive(Debug, Default)]
pub(crate) struct Library;

/// No WESL sources without the feature.
#[derive(Debug)]
pub(crate) enum Sources {}

/// Nothing is compiled without the feature.
pub(crate) struct Compiled {
    pub(crate) module: naga::Module,
    pub(crate) sites: Sites,
    pub(crate) map: OutputMap,
}

/// No output to map without the feature.
pub(crate) enum OutputMap {}

impl OutputMap {
    pub(crate) fn reflect_error(&self, _: freqbuf::error::ReflectError, _: &str) -> EffectError {
        match *self {}
    }
}

impl Sources {
    pub(crate) fn tested_bits(&self, _: &[String]) -> Bits {
        match *self {}
    }
}

pub(crate) fn permutation(
    sources: &Arc<Sources>,
    _: u32,
    _: &[(String, ShaderDefValue)],
    _: &[&str],
    _: (&str, &str),
) -> Result<Compiled, EffectError> {
    match **sources {}
}
