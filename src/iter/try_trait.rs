//! A stable stand-in for `std::ops::Try`, for the `try_*` methods.
//!
//! The trait is public (it appears in bounds) but lives in a private module,
//! so users can neither name nor implement it: it is implemented for
//! `Option`, `Result`, `ControlFlow` and the two `Poll` forms, as rayon does.

use std::convert::Infallible;
use std::ops::ControlFlow::{self, Break, Continue};
use std::task::Poll;

/// A value that either continues with an `Output` or stops with a
/// `Residual` (like `?`).
pub trait Try {
    /// The value on success.
    type Output;
    /// The value that stops the computation, without its success type.
    type Residual;
    /// Wraps a success.
    fn from_output(output: Self::Output) -> Self;
    /// Wraps a stop.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Continue with the output, or break with the residual.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;
    fn from_output(output: C) -> Self {
        Continue(output)
    }
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Break(b) => Break(b),
            Continue(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Self::Residual, C> {
        match self {
            Continue(c) => Continue(c),
            Break(b) => Break(Break(b)),
        }
    }
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual(_: Self::Residual) -> Self {
        None
    }
    fn branch(self) -> ControlFlow<Self::Residual, T> {
        match self {
            Some(t) => Continue(t),
            None => Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Self::Residual, T> {
        match self {
            Ok(t) => Continue(t),
            Err(e) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Result<T, E>> {
    type Output = Poll<T>;
    type Residual = Result<Infallible, E>;
    fn from_output(output: Poll<T>) -> Self {
        output.map(Ok)
    }
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Poll::Ready(Err(e)),
            Ok(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Self::Residual, Poll<T>> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(Ok(t)) => Continue(Poll::Ready(t)),
            Poll::Ready(Err(e)) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Option<Result<T, E>>> {
    type Output = Poll<Option<T>>;
    type Residual = Result<Infallible, E>;
    fn from_output(output: Poll<Option<T>>) -> Self {
        output.map(|o| o.map(Ok))
    }
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Poll::Ready(Some(Err(e))),
            Ok(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Self::Residual, Poll<Option<T>>> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(None) => Continue(Poll::Ready(None)),
            Poll::Ready(Some(Ok(t))) => Continue(Poll::Ready(Some(t))),
            Poll::Ready(Some(Err(e))) => Break(Err(e)),
        }
    }
}
