//! Slot layouts: the merged layout of one shared uniform slot.
//!
//! Several shaders may declare a block at the same binding point, each with a
//! prefix or a subset of the members. The slot's layout is the union of the
//! members. A member must keep its offset, type and count in every shader, and
//! two different members must not share bytes.

use crate::errors::{LayoutErrorKind, Location, MemberSite, ParamErrorKind};
use crate::id::ShaderId;
use crate::instance::family::{FamilyId, NamedFamily};
use crate::reflect::name::Segment;
use crate::reflect::name::is_padding;
use crate::reflect::{BlockLayout, Member, MemberType};
use crate::slot::plan::{BindingPoint, Frequency};
use crate::slot::slab::SlabSource;

/// The merged layout of one slot: every member any registered shader declares.
#[derive(Clone, Debug)]
pub struct SlotLayout {
    binding: BindingPoint,
    frequency: Frequency,
    size: u32,
    /// An array slot: a storage array with one element per instance.
    array: bool,
    /// The family of a per-family slot.
    family: Option<NamedFamily>,
    members: Vec<SlotMember>,
    users: Vec<ShaderId>,
    /// Block variable and struct type names its users declare (`mat_b`, `MatB`),
    /// which qualify a member name: `mat_b.color`.
    aliases: Vec<String>,
    /// A slab: an array slot found through another array's member.
    slab: Option<SlabSource>,
}

/// A member of a slot, with the first shader that declared it.
#[derive(Clone, Debug)]
pub struct SlotMember {
    /// The member.
    pub member: Member,
    /// The shader that first declared it.
    pub shader: String,
    /// Where that shader declares the block.
    pub location: Option<Location>,
}

/// A resolved path inside a slot: where a value lives and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Resolved<'a> {
    /// Byte offset inside the slot.
    pub offset: u32,
    /// The type of one element.
    pub ty: &'a MemberType,
    /// Elements addressed: the array length for a whole array, else 1.
    pub count: u32,
    /// Distance between elements; 0 when `count` is 1 and no array is addressed.
    pub stride: u32,
}

impl SlotLayout {
    pub(crate) fn new(
        binding: BindingPoint,
        frequency: Frequency,
        array: bool,
        family: Option<NamedFamily>,
    ) -> Self {
        Self {
            binding,
            frequency,
            size: 0,
            array,
            family,
            members: Vec::new(),
            users: Vec::new(),
            aliases: Vec::new(),
            slab: None,
        }
    }

    /// Where a slab's element index is read, for an array slot that every
    /// user finds through another array's member (`slot/slab.rs`); `None` for
    /// uniform slots and array slots indexed by the instance index.
    #[inline]
    pub fn slab(&self) -> Option<&SlabSource> {
        self.slab.as_ref()
    }

    /// Makes the slot a slab read through `source` (or one indexed by the
    /// instance index, `None`), unless a user already reads it otherwise:
    /// then the other way, for the error.
    pub(crate) fn read_through(&mut self, source: Option<SlabSource>) -> Result<(), Option<SlabSource>> {
        if self.users.is_empty() {
            self.slab = source;
            return Ok(());
        }
        if self.slab == source { Ok(()) } else { Err(self.slab.clone()) }
    }

    /// The slot's binding point.
    #[inline]
    pub fn binding(&self) -> BindingPoint {
        self.binding
    }

    /// The family whose blocks it merges, for a slot of a per-family
    /// frequency ([`crate::Sharing::PerFamily`]); `None` for a shared slot.
    #[inline]
    pub fn family(&self) -> Option<&str> {
        self.family.as_ref().map(|f| f.name.as_str())
    }

    /// Its family, for a slot of a per-family frequency.
    #[inline]
    pub(crate) fn family_id(&self) -> Option<FamilyId> {
        self.family.as_ref().map(|f| f.id)
    }

    /// The slot's update frequency.
    #[inline]
    pub fn frequency(&self) -> Frequency {
        self.frequency
    }

    /// The largest block size any user declares, in bytes; for an array slot,
    /// the element stride every user shares.
    #[inline]
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Whether this is an array slot (`var<storage, read> objects: array<Object>`):
    /// instances are elements at the struct's own stride, read by instance index.
    #[inline]
    pub fn is_array(&self) -> bool {
        self.array
    }

    /// The merged members, by offset.
    #[inline]
    pub fn members(&self) -> &[SlotMember] {
        &self.members
    }

    /// The shaders that use this slot, in registration order.
    #[inline]
    pub fn users(&self) -> &[ShaderId] {
        &self.users
    }

    /// The block variable and struct type names its users declare, first use first.
    #[inline]
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }

    /// The top-level member called `name` (already normalized).
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().map(|m| &m.member).find(|m| m.name == name)
    }

    /// Merges one shader's declaration of the block into this layout.
    ///
    /// On error the layout is unchanged.
    #[allow(clippy::result_large_err, reason = "internal; the error becomes `Error::Layout`")]
    pub(crate) fn merge(
        &mut self,
        shader: ShaderId,
        shader_name: &str,
        var: &str,
        location: Option<Location>,
        block: &BlockLayout,
    ) -> Result<(), LayoutErrorKind> {
        let site = |m: &Member, shader: &str, location| MemberSite {
            shader: shader.to_owned(),
            location,
            member: m.name.clone(),
            offset: m.offset,
            size: m.size,
            ty: m.ty.name().to_owned(),
            count: m.count,
        };
        let mut added = Vec::new();
        for new in block.members.iter().filter(|m| !is_padding(&m.name)) {
            match self.members.iter().find(|old| old.member.name == new.name) {
                Some(old) => {
                    let o = &old.member;
                    if o.offset != new.offset
                        || o.ty != new.ty
                        || o.count != new.count
                        || o.stride != new.stride
                    {
                        return Err(LayoutErrorKind::MemberMismatch {
                            first: site(o, &old.shader, old.location),
                            second: site(new, shader_name, location),
                        });
                    }
                }
                None => {
                    let overlap = self.members.iter().find(|old| {
                        let o = &old.member;
                        // Values, not declared sizes: `@size` room may hold another's member.
                        o.offset < new.offset + new.extent() && new.offset < o.offset + o.extent()
                    });
                    if let Some(old) = overlap {
                        return Err(LayoutErrorKind::Overlap {
                            first: site(&old.member, &old.shader, old.location),
                            second: site(new, shader_name, location),
                        });
                    }
                    added.push(SlotMember { member: new.clone(), shader: shader_name.to_owned(), location });
                }
            }
        }
        self.members.extend(added);
        self.members.sort_by_key(|m| m.member.offset);
        self.size = self.size.max(block.size);
        if !self.users.contains(&shader) {
            self.users.push(shader);
        }
        for alias in std::iter::once(var).chain(block.type_name.as_deref()) {
            if !self.aliases.iter().any(|a| a == alias) {
                self.aliases.push(alias.to_owned());
            }
        }
        Ok(())
    }

    /// Resolves a parsed path (`lights[3].color`) to an offset and type.
    ///
    /// `name[N]` where N is the array's length is the D3D reflection spelling of
    /// the whole array (`GMRTs[4]`), and resolves to the whole array.
    pub(crate) fn resolve<'a>(&'a self, path: &[Segment<'_>]) -> Result<Resolved<'a>, ParamErrorKind> {
        let (first, rest) = path.split_first().ok_or(ParamErrorKind::Malformed)?;
        let m = self.member(first.name).ok_or(ParamErrorKind::Unknown { suggestions: Vec::new() })?;
        resolve_in(&m.name, &m.ty, (m.count, m.stride), first, rest, m.offset)
    }

    /// Every addressable top-level member name, for suggestions.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|m| m.member.name.as_str())
    }
}

/// Resolves `seg` (and `rest`) in a value named `name` of element type `ty`,
/// `count` elements `stride` apart (`stride` 0: not an array), at `base`.
fn resolve_in<'a>(
    name: &str,
    ty: &'a MemberType,
    (count, stride): (u32, u32),
    seg: &Segment<'_>,
    rest: &[Segment<'_>],
    base: u32,
) -> Result<Resolved<'a>, ParamErrorKind> {
    let mut offset = base;
    let whole = match seg.index {
        None => true,
        Some(_) if stride == 0 => return Err(ParamErrorKind::NotAnArray { member: name.to_owned() }),
        // The D3D spelling of a whole array (`GMRTs[4]`), for the outermost index only.
        Some(i) if i == count && rest.is_empty() && !seg.name.is_empty() => true,
        Some(i) if i >= count => {
            return Err(ParamErrorKind::IndexOutOfRange { member: name.to_owned(), index: i, count });
        }
        Some(i) => {
            offset += i * stride;
            false
        }
    };
    match rest.split_first() {
        None if whole => Ok(Resolved { offset, ty, count, stride }),
        None => Ok(Resolved { offset, ty, count: 1, stride: 0 }),
        Some(_) if whole && stride != 0 => Err(ParamErrorKind::NeedsIndex { member: name.to_owned() }),
        // A further index (`coeffs[8][2]`) selects in an array element.
        Some((next, rest)) if next.name.is_empty() => match ty {
            MemberType::Array { elem, count, stride, .. } => {
                let inner = format!("{name}[{}]", seg.index.unwrap_or(0));
                resolve_in(&inner, elem, (*count, *stride), next, rest, offset)
            }
            _ => Err(ParamErrorKind::NotAnArray { member: format!("{name}[{}]", seg.index.unwrap_or(0)) }),
        },
        Some((next, rest)) => match ty {
            MemberType::Struct { fields, .. } => {
                let field =
                    fields.iter().find(|f| f.name == next.name).ok_or_else(|| ParamErrorKind::Unknown {
                        suggestions: crate::reflect::name::closest(
                            next.name,
                            fields.iter().map(|f| f.name.as_str()),
                        ),
                    })?;
                resolve_in(
                    &field.name,
                    &field.ty,
                    (field.count, field.stride),
                    next,
                    rest,
                    offset + field.offset,
                )
            }
            MemberType::Array { .. } => Err(ParamErrorKind::NeedsIndex { member: name.to_owned() }),
            MemberType::Plain { .. } => Err(ParamErrorKind::NotAStruct { member: name.to_owned() }),
        },
    }
}
