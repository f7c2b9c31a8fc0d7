//! A plain-data snapshot of parsed MLIR: the facts the rules need, with no MLIR handles.
//!
//! Why a snapshot: only `mlir/` may touch raw MLIR handles (see ARCHITECTURE.md). Converting a
//! parsed module once into owned Rust values lets the verifier, the linker's analyses and the
//! tests work on ordinary data that is `Send`, cheap to construct in tests, and cannot dangle.
//! Part of tunespec-core, which `build.rs` also uses; it depends on nothing but std.

/// A source position: file name as MLIR recorded it, 1-based line and byte column.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// The file name the location carries (the name the input was parsed under).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// An attribute value, classified as far as the rules need and printed otherwise.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// `unit` (a flag attribute's value).
    Unit,
    /// A string.
    Str(String),
    /// `@root::@nested::@leaf`, as the list of names.
    SymbolRef(Vec<String>),
    /// An integer (any width that fits in 64 bits).
    Int(i64),
    /// `[...]`.
    Array(Vec<Attr>),
    /// `{name = value, ...}`, in order.
    Dict(Vec<(String, Attr)>),
    /// A type attribute, printed.
    Type(String),
    /// `array<i64: ...>` (DenseI64ArrayAttr: dim and position lists of match ops).
    I64Array(Vec<i64>),
    /// Anything else, printed as MLIR prints it.
    Other(String),
}

impl Attr {
    /// The string of a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }
    /// The names of a symbol reference, root first.
    pub fn as_symbol_ref(&self) -> Option<&[String]> {
        match self {
            Attr::SymbolRef(path) => Some(path),
            _ => None,
        }
    }
    /// The elements of an array attribute.
    pub fn as_array(&self) -> Option<&[Attr]> {
        match self {
            Attr::Array(items) => Some(items),
            _ => None,
        }
    }
    /// The entries of a dictionary attribute.
    pub fn as_dict(&self) -> Option<&[(String, Attr)]> {
        match self {
            Attr::Dict(entries) => Some(entries),
            _ => None,
        }
    }
    /// Looks up `name` in a dictionary attribute.
    pub fn dict_get(&self, name: &str) -> Option<&Attr> {
        self.as_dict()?
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }
}

/// Where an SSA operand comes from, as ids into the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueRef {
    /// Argument `index` of the block with id `block`.
    BlockArg {
        /// The block's id ([`Block::id`]).
        block: u32,
        /// The argument's position.
        index: u32,
    },
    /// Result `index` of the op with id `op`.
    Result {
        /// The op's id ([`Op::id`]).
        op: u32,
        /// The result's position.
        index: u32,
    },
    /// A value defined outside the snapshot (cannot happen for a whole module).
    Unknown,
}

/// One operation with everything nested in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// Pre-order index in the snapshot, unique within one [`Module`].
    pub id: u32,
    /// The op's name (`transform.named_sequence`).
    pub name: String,
    /// Where it was written; `None` for an unknown location.
    pub loc: Option<Loc>,
    /// Its attributes (inherent and discardable), in MLIR's order.
    pub attrs: Vec<(String, Attr)>,
    /// Where each operand comes from.
    pub operands: Vec<ValueRef>,
    /// Each operand's type, printed.
    pub operand_types: Vec<String>,
    /// Each result's type, printed.
    pub result_types: Vec<String>,
    /// Its regions, in order.
    pub regions: Vec<Region>,
}

/// A region: its blocks in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    /// The blocks, entry block first.
    pub blocks: Vec<Block>,
}

/// A block: its arguments' types and its ops.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// Unique within one [`Module`] (what [`ValueRef::BlockArg`] names).
    pub id: u32,
    /// Each argument's type, printed.
    pub arg_types: Vec<String>,
    /// The ops, in order.
    pub ops: Vec<Op>,
}

impl Op {
    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }
    /// Whether the op has the attribute `name`.
    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }
    /// The `sym_name` of a symbol op.
    pub fn sym_name(&self) -> Option<&str> {
        self.attr("sym_name").and_then(Attr::as_str)
    }
    /// The ops of the first block of the first region (a module's or a sequence's body).
    pub fn body(&self) -> &[Op] {
        self.regions
            .first()
            .and_then(|region| region.blocks.first())
            .map(|block| block.ops.as_slice())
            .unwrap_or(&[])
    }
    /// The first block of the first region.
    pub fn entry_block(&self) -> Option<&Block> {
        self.regions
            .first()
            .and_then(|region| region.blocks.first())
    }
    /// Visits this op and every nested op, parents before children.
    pub fn walk<'a>(&'a self, visit: &mut dyn FnMut(&'a Op)) {
        visit(self);
        for region in &self.regions {
            for block in &region.blocks {
                for op in &block.ops {
                    op.walk(visit);
                }
            }
        }
    }
}

/// A parsed top-level operation (normally `builtin.module`) and its snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The top-level op.
    pub root: Op,
}

/// The name of the symbol-name attribute, and the op names the rules care about.
pub mod names {
    /// The module op.
    pub const MODULE: &str = "builtin.module";
    /// A named sequence: matchers, actions, helpers and entry points.
    pub const NAMED_SEQUENCE: &str = "transform.named_sequence";
    /// The op that runs matcher -> action pairs, first match wins.
    pub const FOREACH_MATCH: &str = "transform.foreach_match";
    /// Calls a named sequence (of this or a nested module).
    pub const INCLUDE: &str = "transform.include";
    /// A sequence's terminator.
    pub const YIELD: &str = "transform.yield";
    /// The module attribute that says a module holds named sequences (a transform library).
    pub const WITH_NAMED_SEQUENCE: &str = "transform.with_named_sequence";
    /// IREE's attribute on a tuning spec's entry point.
    pub const ENTRYPOINT_ATTR: &str = "iree_codegen.tuning_spec_entrypoint";
    /// IREE's module attribute of a merge-ready spec (entry point `@__kernel_config`).
    pub const DEFAULT_ENTRYPOINT_ATTR: &str = "iree_codegen.tuning_spec_with_default_entrypoint";
    /// The entry point IREE calls.
    pub const KERNEL_CONFIG: &str = "__kernel_config";
    /// The argument attribute of a handle an op consumes.
    pub const CONSUMED: &str = "transform.consumed";
    /// The argument attribute of a handle an op only reads.
    pub const READONLY: &str = "transform.readonly";
    /// The handle type of any operation.
    pub const ANY_OP: &str = "!transform.any_op";
}

/// What a native matcher needs to know about one payload op (see `tunespec::fastpath`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpFeatures {
    /// Pre-order id, as in the snapshot.
    pub id: u32,
    /// The op's name.
    pub name: String,
    /// Static loop ranges of a linalg op (dynamic extents negative); None otherwise.
    pub loops: Option<Vec<i64>>,
    /// Number of DPS inputs of a linalg op (the inits follow them).
    pub num_inputs: Option<usize>,
    /// Per operand: the bit width of its element type when it is a shaped type of integers or
    /// floats (what `transform.match.structured.elemental_bitwidth` reports), else None.
    pub operand_bitwidths: Vec<Option<u32>>,
    /// Nested inside a function-like op (or is one): visited by `foreach_match` per function.
    pub in_function: bool,
    /// Per operand: its element type printed (the type itself when not shaped), as IREE's
    /// match ops compare it (`getElementTypeOrSelf`); empty for ops other than linalg and
    /// attention ops.
    pub element_types: Vec<String>,
    /// For a linalg contraction: the loop ranges of its batch, m, n and k dims, as
    /// `transform.iree.match.contraction` reports them.
    pub contraction: Option<[Vec<i64>; 4]>,
    /// Per operand: its type printed, for the same ops as `element_types` (what
    /// `transform.iree.match.cast_compatible_type` and `.dim_is_multiple_of` read).
    pub operand_types: Vec<String>,
    /// For a linalg convolution: the eight result groups of `transform.iree.match.convolution`
    /// (batch, output image, output channel, filter loop, input channel, depth, strides,
    /// dilations).
    pub convolution: Option<Vec<Vec<i64>>>,
    /// For IREE's `iree_linalg_ext.attention` (false) or unmasked `.online_attention` (true):
    /// the five result groups (batch, m, n, k1, k2) of the matching transform op.
    pub attention: Option<(bool, Vec<Vec<i64>>)>,
    /// A linalg op's (or an attention op's) indexing maps, printed (`[affine_map<...>, ...]`).
    pub indexing_maps: Option<String>,
    /// Carries IREE's `lowering_config` or `compilation_info` attribute (what
    /// `transform.iree.match.has_no_lowering_config` rejects).
    pub has_config: bool,
}
