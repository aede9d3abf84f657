//! rayon-core's deprecated entry points, kept because rayon-core 1.13 still
//! has them: [`Configuration`], [`initialize`] and [`ThreadPool::new`].
//!
//! Each is a thin wrapper over [`ThreadPoolBuilder`]: a `Configuration` holds
//! a builder, its setters forward to the builder's, and the errors are the
//! builder's [`BuildError`](crate::BuildError) boxed as `Box<dyn Error>` (rayon-core's
//! signatures). New code uses the builder.

#![allow(deprecated)]

use std::any::Any;
use std::error::Error;
use std::fmt;

use super::builder::ThreadPoolBuilder;
use super::thread_pool::ThreadPool;

/// A thread pool configuration: rayon-core's predecessor of
/// [`ThreadPoolBuilder`], which it wraps. Use [`ThreadPoolBuilder`] instead.
///
/// ```
/// #![allow(deprecated)]
/// let pool = locus::Configuration::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
#[deprecated(note = "Use `ThreadPoolBuilder`")]
#[derive(Default)]
pub struct Configuration {
    builder: ThreadPoolBuilder,
}

impl Configuration {
    /// A configuration with every default (as [`ThreadPoolBuilder::new`]);
    /// nothing is started until [`build`](Self::build) or [`initialize`].
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// Builds a pool; see [`ThreadPoolBuilder::build`].
    pub fn build(self) -> Result<ThreadPool, Box<dyn Error + 'static>> {
        self.builder.build().map_err(Box::from)
    }

    /// Names the worker threads; see [`ThreadPoolBuilder::thread_name`].
    pub fn thread_name<F>(self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.map(|b| b.thread_name(closure))
    }

    /// Sets the number of workers; see [`ThreadPoolBuilder::num_threads`].
    pub fn num_threads(self, num_threads: usize) -> Configuration {
        self.map(|b| b.num_threads(num_threads))
    }

    /// Sets the handler of panics in detached jobs; see
    /// [`ThreadPoolBuilder::panic_handler`].
    pub fn panic_handler<H>(self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.map(|b| b.panic_handler(panic_handler))
    }

    /// Sets the workers' stack size; see [`ThreadPoolBuilder::stack_size`].
    pub fn stack_size(self, stack_size: usize) -> Self {
        self.map(|b| b.stack_size(stack_size))
    }

    /// Asks for breadth-first scheduling; see
    /// [`ThreadPoolBuilder::breadth_first`].
    pub fn breadth_first(self) -> Self {
        self.map(|b| b.breadth_first())
    }

    /// Sets the handler run when a worker starts; see
    /// [`ThreadPoolBuilder::start_handler`].
    pub fn start_handler<H>(self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.map(|b| b.start_handler(start_handler))
    }

    /// Sets the handler run when a worker exits; see
    /// [`ThreadPoolBuilder::exit_handler`].
    pub fn exit_handler<H>(self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.map(|b| b.exit_handler(exit_handler))
    }

    /// The configuration with its builder passed through `f`.
    fn map(self, f: impl FnOnce(ThreadPoolBuilder) -> ThreadPoolBuilder) -> Self {
        Configuration {
            builder: f(self.builder),
        }
    }
}

impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.builder.fmt(f)
    }
}

/// Builds the global pool from `config`; fails if it already exists. Use
/// [`ThreadPoolBuilder::build_global`] instead.
///
/// ```
/// #![allow(deprecated)]
/// // Either this call builds the global pool, or it existed already.
/// let _ = locus::initialize(locus::Configuration::new());
/// assert!(locus::current_num_threads() >= 1);
/// ```
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error>> {
    config.builder.build_global().map_err(Box::from)
}

impl ThreadPool {
    /// Builds a pool from `configuration`. Use [`ThreadPoolBuilder::build`]
    /// instead.
    ///
    /// ```
    /// #![allow(deprecated)]
    /// let pool = locus::ThreadPool::new(locus::Configuration::new().num_threads(1)).unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    #[deprecated(note = "Use `ThreadPoolBuilder::build`")]
    pub fn new(configuration: Configuration) -> Result<ThreadPool, Box<dyn Error>> {
        configuration.builder.build().map_err(Box::from)
    }
}
