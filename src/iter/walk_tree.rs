//! `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`: the nodes of a
//! tree given by a root and a `children_of` function, in parallel.
//!
//! A producer holds a run of sibling subtrees (`roots`) plus, for the
//! prefix order, a node already expanded that comes before them (`first`),
//! or, for the postfix order, one that comes after them (`last`). It
//! splits the run of subtrees in two; a lone subtree is first expanded
//! (its root becomes `first` or `last`, its children the new run). The
//! left part's nodes thus always precede the right part's in the walk's
//! order, so ordered consumers (`collect`) see exactly the sequential
//! order. A leaf of the split walks its subtrees with an explicit stack
//! (no recursion: a deep tree cannot overflow the worker's stack).

use std::fmt;

use super::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer, bridge_unindexed};

/// The nodes of the tree below `root` (included) in prefix order: a node
/// before its children, children in the order `children_of` gives them.
/// Ordered consumers (`collect`) see that order.
///
/// ```
/// use locus::prelude::*;
/// use locus::iter::walk_tree_prefix;
/// // The tree 1 -> (2 -> (4, 5), 3).
/// let v: Vec<u32> = walk_tree_prefix(1u32, |&n| if n < 3 { vec![2 * n, 2 * n + 1] } else { vec![] }).collect();
/// assert_eq!(v, [1, 2, 4, 5, 3]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of the tree below `root` (included) in postfix order: a
/// node's children (in the order `children_of` gives them) before the
/// node. Ordered consumers (`collect`) see that order.
///
/// ```
/// use locus::prelude::*;
/// use locus::iter::walk_tree_postfix;
/// let v: Vec<u32> = walk_tree_postfix(1u32, |&n| if n < 3 { vec![2 * n, 2 * n + 1] } else { vec![] }).collect();
/// assert_eq!(v, [4, 5, 2, 3, 1]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of the tree below `root` (included), in an unspecified order
/// (today the prefix order; use [`walk_tree_prefix`] or
/// [`walk_tree_postfix`] to rely on one).
///
/// ```
/// use locus::prelude::*;
/// use locus::iter::walk_tree;
/// // Every number below 1000 in a binary heap layout.
/// let n = walk_tree(1u32, |&n| [2 * n, 2 * n + 1].into_iter().filter(|&c| c < 1000).collect::<Vec<_>>()).count();
/// assert_eq!(n, 999);
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree(walk_tree_prefix(root, children_of))
}

/// A tree walked in prefix order. Made by [`walk_tree_prefix`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

/// A tree walked in postfix order. Made by [`walk_tree_postfix`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

/// A tree walked in an unspecified order. Made by [`walk_tree`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct WalkTree<S, B>(WalkTreePrefix<S, B>);

macro_rules! debug_root {
    ($($name:ident),*) => {$(
        impl<S: fmt::Debug, B> fmt::Debug for $name<S, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("root", &self.root).finish()
            }
        }
    )*};
}

debug_root!(WalkTreePrefix, WalkTreePostfix);

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WalkTree").field(&self.0.root).finish()
    }
}

/// The ordered walks: one producer, told the order.
macro_rules! ordered_walk {
    ($($name:ident => $postfix:expr),*) => {$(
        impl<S, B, I> ParallelIterator for $name<S, B>
        where
            S: Send,
            B: Fn(&S) -> I + Send + Sync,
            I: IntoIterator<Item = S>,
        {
            type Item = S;

            fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
                let walk = Walk { roots: vec![self.root], node: None, children_of: &self.children_of, postfix: $postfix };
                bridge_unindexed(walk, consumer)
            }
        }
    )*};
}

ordered_walk!(WalkTreePrefix => false, WalkTreePostfix => true);

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_unindexed(consumer)
    }
}

/// A part of the walk: the subtrees `roots` in order, and `node`, an
/// expanded node that comes before them (prefix) or after them (postfix).
struct Walk<'b, S, B> {
    roots: Vec<S>,
    node: Option<S>,
    children_of: &'b B,
    postfix: bool,
}

impl<S, B, I> UnindexedProducer for Walk<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        if self.node.is_none() && self.roots.len() == 1 {
            let root = self.roots.pop().expect("one root");
            self.roots = (self.children_of)(&root).into_iter().collect();
            self.node = Some(root);
        }
        let n = self.roots.len();
        // The left part keeps `keep` subtrees; both parts must hold a node.
        let keep = match (&self.node, self.postfix) {
            (None, _) if n >= 2 => n / 2,
            (Some(_), false) if n >= 1 => n / 2,
            (Some(_), true) if n >= 1 => n.div_ceil(2),
            _ => return (self, None),
        };
        let right_roots = self.roots.split_off(keep);
        let (children_of, postfix) = (self.children_of, self.postfix);
        // The expanded node stays with the part it is adjacent to.
        let right_node = if postfix { self.node.take() } else { None };
        let right = Walk {
            roots: right_roots,
            node: right_node,
            children_of,
            postfix,
        };
        (self, Some(right))
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        let Walk {
            roots,
            node,
            children_of,
            postfix,
        } = self;
        let (before, after) = if postfix { (None, node) } else { (node, None) };
        if let Some(node) = before {
            folder = folder.consume(node);
        }
        for root in roots {
            if folder.full() {
                return folder;
            }
            folder = if postfix {
                walk_postfix(root, children_of, folder)
            } else {
                walk_prefix(root, children_of, folder)
            };
        }
        match after {
            Some(node) if !folder.full() => folder.consume(node),
            _ => folder,
        }
    }
}

/// Feeds the subtree of `root` to `folder` in prefix order, sequentially.
fn walk_prefix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    // The children still to visit, one iterator per level.
    let mut stack = vec![children_of(&root).into_iter()];
    folder = folder.consume(root);
    while let Some(level) = stack.last_mut() {
        if folder.full() {
            break;
        }
        match level.next() {
            Some(node) => {
                let children = children_of(&node).into_iter();
                folder = folder.consume(node);
                stack.push(children);
            }
            None => {
                stack.pop();
            }
        }
    }
    folder
}

/// Feeds the subtree of `root` to `folder` in postfix order, sequentially.
fn walk_postfix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    // Each node on the path from `root`, with its children still to visit.
    let children = children_of(&root).into_iter();
    let mut stack = vec![(root, children)];
    while let Some((_, level)) = stack.last_mut() {
        match level.next() {
            Some(node) => {
                let children = children_of(&node).into_iter();
                stack.push((node, children));
            }
            None => {
                let (node, _) = stack.pop().expect("a node on the path");
                folder = folder.consume(node);
                if folder.full() {
                    break;
                }
            }
        }
    }
    folder
}
