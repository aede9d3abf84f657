//! The spawn strategies a [`crate::ThreadPoolBuilder`] is generic over:
//! [`DefaultSpawn`] (a `std::thread` per worker) and [`CustomSpawn`] (the
//! closure of [`crate::ThreadPoolBuilder::spawn_handler`]). Each consumes
//! the runtime's [`ThreadBuilder`], re-exported here as
//! `locus::ThreadBuilder`.

use std::fmt;
use std::io;
use std::sync::Arc;

use crate::runtime::thread_builder::ThreadBuilder;

mod sealed {
    /// Keeps [`super::ThreadSpawn`] implemented only here.
    pub trait Sealed {}
}

/// How a [`crate::ThreadPoolBuilder`] starts its threads: [`DefaultSpawn`]
/// or a [`CustomSpawn`] set by [`crate::ThreadPoolBuilder::spawn_handler`].
/// Sealed: not implementable outside locus.
pub trait ThreadSpawn: sealed::Sealed {
    /// Starts a thread that calls [`ThreadBuilder::run`].
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()>;
}

/// The default spawn strategy: a `std::thread` named and sized as the
/// [`ThreadBuilder`] says, joined when the pool is dropped.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl sealed::Sealed for DefaultSpawn {}

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        let mut b = std::thread::Builder::new();
        if let Some(name) = thread.name() {
            b = b.name(name.to_owned());
        }
        if let Some(size) = thread.stack_size() {
            b = b.stack_size(size);
        }
        let registry = Arc::clone(thread.registry());
        let handle = b.spawn(move || thread.run())?;
        registry.keep_handle(handle);
        Ok(())
    }
}

/// A spawn strategy given by the user's closure (see
/// [`crate::ThreadPoolBuilder::spawn_handler`]).
pub struct CustomSpawn<F>(pub(crate) F);

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn")
    }
}

impl<F> sealed::Sealed for CustomSpawn<F> where F: FnMut(ThreadBuilder) -> io::Result<()> {}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        (self.0)(thread)
    }
}
