//! `Freqbuf` with caller-owned rows (`Manager::own_rows`), as
//! `freqbuf_rows` and `freqbuf_bindless_rows`: the object array's rows are
//! the scene's own packed array, written from it each frame with no shadow.

use freqbuf::{InstanceList, Manager, Rows};

use crate::freqbuf::Freqbuf;
use crate::method::{BINDLESS_OBJECT_STRIDE, OBJECT_STRIDE};
use crate::scene::{FrameChanges, Scene};

/// The object array's rows as the scene packs them: 80 bytes, or 96 with
/// the bindless shaders' material pointer.
pub(crate) enum ObjectRows {
    Plain(Rows<[u8; OBJECT_STRIDE as usize]>),
    Bindless(Rows<[u8; BINDLESS_OBJECT_STRIDE as usize]>),
}

impl Freqbuf {
    /// Hands the object array to the scene (`Manager::own_rows`): moved
    /// objects go up from the scene's own packed array (`Scene::rows`), as
    /// the hand-written `storage_indirect` uploads them, with no shadow.
    pub fn with_rows(mut self) -> Self {
        let form = match self.bindless {
            true => ObjectRows::Bindless(self.m.own_rows("objects").expect("96-byte objects")),
            false => ObjectRows::Plain(self.m.own_rows("objects").expect("80-byte objects")),
        };
        // The scene's rows point at material `m` as element `m`: freqbuf's, in creation order.
        for (k, &m) in self.materials.iter().enumerate() {
            assert_eq!(self.m.slab_element(m).expect("a live material"), k as u32);
        }
        self.rows = Some(form);
        self.name = if self.bindless { "freqbuf_bindless_rows" } else { "freqbuf_rows" };
        self
    }

    /// Writes the moved objects' rows (and, the first frame, every row) from
    /// the scene's array: all of them where at least half moved, as the
    /// hand-written peer uploads its whole array then.
    pub(crate) fn write_rows(&mut self, scene: &Scene, changes: &FrameChanges) {
        let list = self.object_list.as_ref().expect("objects");
        let n = scene.objects.len();
        let moved = changes.objects.iter().map(|o| o.0);
        let all = (changes.objects.len() * 2 >= n).then_some(0..n);
        let written = match self.rows.as_ref().expect("rows") {
            ObjectRows::Plain(r) => write(&mut self.m, r, list, scene.rows(false), all, moved),
            ObjectRows::Bindless(r) => write(&mut self.m, r, list, scene.rows(true), all, moved),
        };
        written.expect("a list of the scene's objects");
    }
}

/// `all` when given, else `moved`, from the scene's packed rows.
fn write<const N: usize>(
    m: &mut Manager,
    rows: &Rows<[u8; N]>,
    list: &InstanceList,
    packed: &[u8],
    all: Option<std::ops::Range<usize>>,
    moved: impl Iterator<Item = usize>,
) -> Result<(), freqbuf::Error> {
    let packed: &[[u8; N]] = bytemuck::cast_slice(packed);
    match all {
        Some(all) => m.write_rows(rows, list, packed, all),
        None => m.write_rows(rows, list, packed, moved),
    }
}
