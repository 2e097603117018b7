//! Auto constants (Ogre's `param_named_auto`): members bound to a meaning that
//! freqbuf derives from inputs the application gives once per change, and
//! writes only when those inputs changed.

use std::collections::{BTreeSet, HashMap};

use glam::{Mat3, Mat4};

use super::math::{IntoColumns, IntoVec2};

use crate::error::{MaterialError, MaterialErrorKind};
use freqbuf::Error;
use freqbuf::Frequency;
use freqbuf::Manager;
use freqbuf::Param;
use freqbuf::Registry;
use freqbuf::reflect::ValueType;
use freqbuf::{ObjectId, ViewId};

/// A meaning a member can be bound to, with its frequency and WGSL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Semantic {
    /// Seconds since start (`f32`, frame).
    Time,
    /// Seconds since the last frame (`f32`, frame).
    DeltaTime,
    /// Frames since start (`u32`, frame).
    FrameIndex,
    /// The viewport's size in pixels (`vec2<f32>`, view).
    ViewportSize,
    /// World to view (`mat4x4<f32>`, view).
    View,
    /// View to clip (`mat4x4<f32>`, view).
    Proj,
    /// World to clip (`mat4x4<f32>`, view).
    ViewProj,
    /// View to world (`mat4x4<f32>`, view).
    InvView,
    /// Clip to view (`mat4x4<f32>`, view).
    InvProj,
    /// Clip to world (`mat4x4<f32>`, view).
    InvViewProj,
    /// The camera's position in world space (`vec3<f32>`, view).
    CameraPosition,
    /// Object to world (`mat4x4<f32>`, object).
    World,
    /// World to object (`mat4x4<f32>`, object).
    InvWorld,
    /// The inverse transpose of the world's 3×3, for normals (`mat3x3<f32>`, object).
    NormalMatrix,
}

const ALL: [Semantic; 14] = [
    Semantic::Time,
    Semantic::DeltaTime,
    Semantic::FrameIndex,
    Semantic::ViewportSize,
    Semantic::View,
    Semantic::Proj,
    Semantic::ViewProj,
    Semantic::InvView,
    Semantic::InvProj,
    Semantic::InvViewProj,
    Semantic::CameraPosition,
    Semantic::World,
    Semantic::InvWorld,
    Semantic::NormalMatrix,
];

impl Semantic {
    /// The name the effect file's `[auto]` table uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Semantic::Time => "time",
            Semantic::DeltaTime => "delta_time",
            Semantic::FrameIndex => "frame_index",
            Semantic::ViewportSize => "viewport_size",
            Semantic::View => "view",
            Semantic::Proj => "proj",
            Semantic::ViewProj => "view_proj",
            Semantic::InvView => "inv_view",
            Semantic::InvProj => "inv_proj",
            Semantic::InvViewProj => "inv_view_proj",
            Semantic::CameraPosition => "camera_position",
            Semantic::World => "world",
            Semantic::InvWorld => "inv_world",
            Semantic::NormalMatrix => "normal_matrix",
        }
    }

    /// How often it changes: the frequency of the slot its member must be in.
    pub fn frequency(self) -> Frequency {
        match self {
            Semantic::Time | Semantic::DeltaTime | Semantic::FrameIndex => Frequency::Frame,
            Semantic::World | Semantic::InvWorld | Semantic::NormalMatrix => Frequency::Object,
            Semantic::ViewportSize
            | Semantic::View
            | Semantic::Proj
            | Semantic::ViewProj
            | Semantic::InvView
            | Semantic::InvProj
            | Semantic::InvViewProj
            | Semantic::CameraPosition => Frequency::View,
        }
    }

    /// Its WGSL type.
    pub fn wgsl(self) -> &'static str {
        match self {
            Semantic::Time | Semantic::DeltaTime => "f32",
            Semantic::FrameIndex => "u32",
            Semantic::ViewportSize => "vec2<f32>",
            Semantic::CameraPosition => "vec3<f32>",
            Semantic::NormalMatrix => "mat3x3<f32>",
            Semantic::View
            | Semantic::Proj
            | Semantic::ViewProj
            | Semantic::InvView
            | Semantic::InvProj
            | Semantic::InvViewProj
            | Semantic::World
            | Semantic::InvWorld => "mat4x4<f32>",
        }
    }

    fn value_type(self) -> ValueType {
        use naga::ScalarKind::{Float, Uint};
        match self {
            Semantic::Time | Semantic::DeltaTime => ValueType::scalar(Float, 4),
            Semantic::FrameIndex => ValueType::scalar(Uint, 4),
            Semantic::ViewportSize => ValueType::vector(Float, 4, 2),
            Semantic::CameraPosition => ValueType::vector(Float, 4, 3),
            Semantic::NormalMatrix => ValueType::matrix(Float, 4, 3, 3),
            Semantic::View
            | Semantic::Proj
            | Semantic::ViewProj
            | Semantic::InvView
            | Semantic::InvProj
            | Semantic::InvViewProj
            | Semantic::World
            | Semantic::InvWorld => ValueType::matrix(Float, 4, 4, 4),
        }
    }

    /// Parses a semantic name. Values of a view and an object at once
    /// (`world_view_proj`, `mvp`) are refused: they have no frequency.
    pub fn parse(name: &str) -> Result<Self, MaterialError> {
        if let Some(s) = ALL.iter().find(|s| s.as_str() == name) {
            return Ok(*s);
        }
        let fail =
            |kind| MaterialError { subject: format!("cannot use semantic `{name}`"), kind: Box::new(kind) };
        let lower = name.to_ascii_lowercase();
        let object = lower.contains("world") || lower.contains("model") || lower == "mvp";
        let view = lower.contains("view") || lower.contains("proj") || lower == "mvp";
        if object && view {
            let view_part = if lower.contains("proj") || lower == "mvp" { "view_proj" } else { "view" };
            return Err(fail(MaterialErrorKind::TwoFrequencies {
                semantic: name.to_owned(),
                view_part,
                object_part: "world",
            }));
        }
        let known = ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>();
        let suggestions = crate::error::closest(name, known.iter().copied());
        Err(fail(MaterialErrorKind::UnknownSemantic { suggestions, known }))
    }

    /// Checks that `member` (resolved in `registry`, among `family`'s slots
    /// when given) can hold this semantic.
    pub(crate) fn check(
        self,
        registry: &Registry,
        family: Option<&str>,
        member: &str,
    ) -> Result<Param, MaterialError> {
        let fail = |kind| MaterialError {
            subject: format!("cannot bind `{member}` to semantic `{}`", self.as_str()),
            kind: Box::new(kind),
        };
        let param = match family {
            Some(family) => registry.resolve_in(family, member, None),
            None => registry.resolve(member, None),
        };
        let param = param.map_err(|e| fail(MaterialErrorKind::Manager(e.into())))?;
        if param.frequency() != self.frequency() {
            return Err(fail(MaterialErrorKind::WrongFrequency {
                member: member.to_owned(),
                semantic: self.as_str(),
                member_frequency: param.frequency(),
                semantic_frequency: self.frequency(),
            }));
        }
        if param.value_type() != Some(self.value_type()) || param.count() > 1 {
            let member_type = match param.value_type() {
                Some(v) if param.count() > 1 => format!("array<{v}, {}>", param.count()),
                Some(v) => v.to_string(),
                None => "a struct".to_owned(),
            };
            return Err(fail(MaterialErrorKind::WrongType {
                member: member.to_owned(),
                member_type,
                semantic: self.as_str(),
                semantic_type: self.wgsl(),
            }));
        }
        Ok(param)
    }
}

/// A camera: what a view's semantics are derived from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to view, columns.
    pub view: [[f32; 4]; 4],
    /// View to clip, columns.
    pub proj: [[f32; 4]; 4],
    /// Viewport size in pixels.
    pub viewport: [f32; 2],
}

impl Camera {
    /// A camera from matrices and a viewport size of any of the accepted
    /// types: arrays, glam's or mint's (`Camera::new(view, proj, [1280.0, 720.0])`
    /// with `glam::Mat4`s).
    pub fn new(view: impl IntoColumns, proj: impl IntoColumns, viewport: impl IntoVec2) -> Self {
        Self { view: view.into_columns(), proj: proj.into_columns(), viewport: viewport.into_array() }
    }
}

/// Auto-constant bindings and their inputs.
///
/// Give inputs when they change ([`AutoConstants::set_time`],
/// [`AutoConstants::set_camera`], [`AutoConstants::set_world`]), then call
/// [`AutoConstants::update`] before [`Manager::flush`]. Cost: only bound
/// semantics are derived, and only for inputs changed since the last update;
/// an unchanged camera costs nothing.
#[derive(Debug, Default)]
pub struct AutoConstants {
    bound: Vec<(Semantic, Param)>,
    time: (f32, f32, u32),
    time_dirty: bool,
    cameras: HashMap<ViewId, Camera>,
    worlds: HashMap<ObjectId, [[f32; 4]; 4]>,
    dirty_views: BTreeSet<ViewId>,
    dirty_objects: BTreeSet<ObjectId>,
    derived: u64,
}

impl AutoConstants {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `member` to `semantic`, checking the member's frequency and type.
    /// Every input is derived again at the next update.
    pub fn bind(&mut self, registry: &Registry, member: &str, semantic: &str) -> Result<(), MaterialError> {
        self.bind_in(registry, None, member, semantic)
    }

    fn bind_in(
        &mut self,
        registry: &Registry,
        family: Option<&str>,
        member: &str,
        semantic: &str,
    ) -> Result<(), MaterialError> {
        let s = Semantic::parse(semantic)?;
        let param = s.check(registry, family, member)?;
        if !self.bound.contains(&(s, param)) {
            self.bound.push((s, param));
        }
        self.time_dirty = true;
        self.dirty_views.extend(self.cameras.keys().copied());
        self.dirty_objects.extend(self.worlds.keys().copied());
        Ok(())
    }

    /// Binds every entry of an effect's `[auto]` table.
    pub fn bind_effect(&mut self, registry: &Registry, effect: &crate::Effect) -> Result<(), MaterialError> {
        // Its members are resolved among its family's shaders: none yet is a
        // missing step, not an unknown name.
        if !effect.auto().is_empty() && !registry.shaders().any(|(_, s)| s.family() == effect.family()) {
            return Err(MaterialError {
                subject: format!("cannot bind the [auto] table of effect `{}`", effect.name()),
                kind: Box::new(MaterialErrorKind::NotRegistered),
            });
        }
        for (member, semantic) in effect.auto() {
            self.bind_in(registry, Some(effect.family()), member, semantic)?;
        }
        Ok(())
    }

    /// The frame's time, time since the last frame, and index.
    pub fn set_time(&mut self, time: f32, delta_time: f32, frame_index: u32) {
        if self.time != (time, delta_time, frame_index) {
            self.time = (time, delta_time, frame_index);
            self.time_dirty = true;
        }
    }

    /// A view's camera.
    pub fn set_camera(&mut self, view: ViewId, camera: Camera) {
        if self.cameras.insert(view, camera) != Some(camera) {
            self.dirty_views.insert(view);
        }
    }

    /// An object's world transform: columns as an array, a `glam::Mat4` or
    /// a `mint::ColumnMatrix4<f32>`.
    pub fn set_world(&mut self, object: ObjectId, world: impl IntoColumns) {
        let world = world.into_columns();
        if self.worlds.insert(object, world) != Some(world) {
            self.dirty_objects.insert(object);
        }
    }

    /// Forgets the inputs of a freed view or object.
    pub fn forget(&mut self, view: Option<ViewId>, object: Option<ObjectId>) {
        if let Some(v) = view {
            self.cameras.remove(&v);
            self.dirty_views.remove(&v);
        }
        if let Some(o) = object {
            self.worlds.remove(&o);
            self.dirty_objects.remove(&o);
        }
    }

    /// Values derived and written so far (each counts once).
    pub fn derived(&self) -> u64 {
        self.derived
    }

    /// Derives the bound semantics whose inputs changed and writes them into
    /// the slot shadows (the next flush uploads them).
    ///
    /// An input whose write fails (a view or object freed without
    /// [`AutoConstants::forget`]) stays pending, and so does nothing else:
    /// every other input is still written, and the first error is returned.
    pub fn update(&mut self, fb: &mut Manager) -> Result<(), Error> {
        let mut first = None;
        if self.time_dirty {
            match self.write_time(fb) {
                Ok(()) => self.time_dirty = false,
                Err(e) => first = first.or(Some(e)),
            }
        }
        let views = self.dirty_views.iter().copied().collect::<Vec<_>>();
        for v in views {
            match self.write_view(fb, v) {
                Ok(()) => _ = self.dirty_views.remove(&v),
                Err(e) => first = first.or(Some(e)),
            }
        }
        let objects = self.dirty_objects.iter().copied().collect::<Vec<_>>();
        for o in objects {
            match self.write_object(fb, o) {
                Ok(()) => _ = self.dirty_objects.remove(&o),
                Err(e) => first = first.or(Some(e)),
            }
        }
        first.map_or(Ok(()), Err)
    }

    fn write_time(&mut self, fb: &mut Manager) -> Result<(), Error> {
        let (time, delta, index) = self.time;
        for &(s, p) in self.bound.iter().filter(|(s, _)| s.frequency() == Frequency::Frame) {
            match s {
                Semantic::Time => fb.frame().set(p, &time)?,
                Semantic::DeltaTime => fb.frame().set(p, &delta)?,
                Semantic::FrameIndex => fb.frame().set(p, &index)?,
                // Not of this frequency: filtered out above.
                Semantic::ViewportSize
                | Semantic::View
                | Semantic::Proj
                | Semantic::ViewProj
                | Semantic::InvView
                | Semantic::InvProj
                | Semantic::InvViewProj
                | Semantic::CameraPosition
                | Semantic::World
                | Semantic::InvWorld
                | Semantic::NormalMatrix => continue,
            }
            self.derived += 1;
        }
        Ok(())
    }

    fn write_view(&mut self, fb: &mut Manager, v: ViewId) -> Result<(), Error> {
        let c = self.cameras[&v];
        let (view, proj) = (Mat4::from_cols_array_2d(&c.view), Mat4::from_cols_array_2d(&c.proj));
        for &(s, p) in self.bound.iter().filter(|(s, _)| s.frequency() == Frequency::View) {
            let mut out = fb.view(v);
            let m = |m: Mat4| m.to_cols_array_2d();
            match s {
                Semantic::ViewportSize => out.set(p, &c.viewport)?,
                Semantic::CameraPosition => out.set(p, &view.inverse().w_axis.truncate().to_array())?,
                Semantic::View => out.set(p, &c.view)?,
                Semantic::Proj => out.set(p, &c.proj)?,
                Semantic::ViewProj => out.set(p, &m(proj * view))?,
                Semantic::InvView => out.set(p, &m(view.inverse()))?,
                Semantic::InvProj => out.set(p, &m(proj.inverse()))?,
                Semantic::InvViewProj => out.set(p, &m((proj * view).inverse()))?,
                // Not of this frequency: filtered out above.
                Semantic::Time
                | Semantic::DeltaTime
                | Semantic::FrameIndex
                | Semantic::World
                | Semantic::InvWorld
                | Semantic::NormalMatrix => continue,
            }
            self.derived += 1;
        }
        Ok(())
    }

    fn write_object(&mut self, fb: &mut Manager, o: ObjectId) -> Result<(), Error> {
        let world = Mat4::from_cols_array_2d(&self.worlds[&o]);
        for &(s, p) in self.bound.iter().filter(|(s, _)| s.frequency() == Frequency::Object) {
            let mut out = fb.object(o);
            match s {
                Semantic::World => out.set(p, &world.to_cols_array_2d())?,
                Semantic::InvWorld => out.set(p, &world.inverse().to_cols_array_2d())?,
                Semantic::NormalMatrix => {
                    out.set(p, &Mat3::from_mat4(world).inverse().transpose().to_cols_array_2d())?
                }
                // Not of this frequency: filtered out above.
                Semantic::Time
                | Semantic::DeltaTime
                | Semantic::FrameIndex
                | Semantic::ViewportSize
                | Semantic::View
                | Semantic::Proj
                | Semantic::ViewProj
                | Semantic::InvView
                | Semantic::InvProj
                | Semantic::InvViewProj
                | Semantic::CameraPosition => continue,
            }
            self.derived += 1;
        }
        Ok(())
    }
}
