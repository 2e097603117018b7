//! The binder's entries over a whole draw list (`bind_list_in`) and its
//! indirect runs (`draw_indirect_in`), and the recording both replay
//! (`record`). They live here, not in `list.rs` or `indirect.rs`, so that
//! the list and the runs never name the binder: the binder uses them, and
//! records through a scratch binder of its own.

use crate::binding::binder::Binder;
use crate::binding::context::BindContext;
use crate::binding::indirect::IndirectDraws;
use crate::binding::list::{DrawList, Recorder};
use crate::binding::target::{ALL_GROUPS, BindTarget, NoPass};
use crate::errors::Error;

impl Binder {
    /// [`Binder::bind_list_groups`] with the manager's state lent, for the
    /// groups in `mask`.
    pub(crate) fn bind_list_in<P: BindTarget>(
        &mut self,
        cx: &mut BindContext<'_>,
        pass: &mut P,
        list: &mut DrawList,
        mask: u32,
        mut draw: impl FnMut(&mut P, usize, u32),
    ) -> Result<(), Error> {
        list.check(cx)?;
        // A replay leaves the recording's last state bound, which this
        // binder does not hold; a new recording starts from nothing bound.
        self.reset();
        if let Some(recorded) = list.recorded(cx.parts.generation, mask) {
            for i in 0..recorded.draws.len() {
                let first = recorded.replay(pass, i);
                draw(pass, i, first);
            }
            self.calls += recorded.calls();
            cx.sent(recorded.counts());
            return Ok(());
        }
        let mut recorder = Recorder::new(pass, cx.parts.generation, mask);
        let mut result = Ok(());
        for (i, &(shader, index)) in list.draws.iter().enumerate() {
            match self.bind_resolved(cx.inputs(), &mut recorder, shader, index, mask) {
                Ok(first) => {
                    recorder.end_draw(first);
                    draw(recorder.pass, i, first);
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // Counted as they were sent, on error too: those calls reached the pass.
        result.map(|()| list.recorded = Some(recorder.recorded))
    }

    /// Records `list`'s bind commands for every draw and all groups, from nothing
    /// bound and into no pass (building groups on a miss), unless the list
    /// holds a recording at the context's generation. A scratch binder binds,
    /// so nothing sent is counted. Cost: [`Binder::bind`] per draw without
    /// the handle lookups, or a comparison when recorded.
    pub(crate) fn record(list: &mut DrawList, cx: &mut BindContext<'_>) -> Result<(), Error> {
        if list.recorded(cx.parts.generation, ALL_GROUPS).is_none() {
            let (mut scratch, mut none) = (Binder::new(), NoPass);
            let mut recorder = Recorder::new(&mut none, cx.parts.generation, ALL_GROUPS);
            for &(shader, index) in &list.draws {
                let first =
                    scratch.bind_resolved(cx.uncounted(), &mut recorder, shader, index, ALL_GROUPS)?;
                recorder.end_draw(first);
            }
            list.recorded = Some(recorder.recorded);
        }
        Ok(())
    }

    /// [`Binder::draw_indirect`] with the manager's state lent.
    pub(crate) fn draw_indirect_in(
        &mut self,
        cx: &mut BindContext<'_>,
        queue: &wgpu::Queue,
        pass: &mut wgpu::RenderPass<'_>,
        list: &mut DrawList,
        draws: &mut IndirectDraws,
        set: impl FnMut(&mut wgpu::RenderPass<'_>, usize),
    ) -> Result<(), Error> {
        list.check(cx)?;
        draws.fits(list)?;
        Self::record(list, cx)?;
        let calls = draws.issue(cx, queue, pass, list, set)?;
        // What is bound afterwards is the recording's, which this binder does not hold.
        self.reset();
        self.calls += calls;
        Ok(())
    }
}
