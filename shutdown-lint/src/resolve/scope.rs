//! The names a module or block declares: items, inline modules, `use` imports and globs.
//!
//! Built once per file ([`ModuleTree::build`]) for modules, and per block when the walker
//! enters it ([`BlockScope::collect`]); items are visible in their whole scope regardless
//! of order, as in Rust.

use super::Canon;
use super::ModRef;
use foldhash::HashMap;

/// Index of a module in a [`ModuleTree`]; `ModId(0)` is the file itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModId(pub usize);

/// What a name in a scope stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Name {
    /// A local item (struct, enum, trait, out-of-file `mod x;`, ...).
    Item,
    /// A local value item (`fn`, `const`, `static`): it names nothing a path of two or more
    /// segments can start with (`fn rocket()` beside `use rocket::launch;`, whose `rocket`
    /// is the crate).
    Value,
    /// An inline module of this file.
    Module(ModId),
    /// A `use` import: the path as written (resolved relative to the declaring module; a
    /// leading `::` is kept as a `"::"` segment).
    Import(Canon),
}

/// One module of the file.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// Names declared in the module.
    pub names: HashMap<String, Name>,
    /// Glob imports (`use x::*`), paths as written.
    pub globs: Vec<Canon>,
    /// Value items (`fn`, `const`, `static`) whose name [`Module::names`] gives to an
    /// import, type or module of another namespace (`use tokio::{runtime, ..};` beside
    /// `pub fn runtime() -> runtime::Runtime`, vector's test utilities): a call or other
    /// value of the name is the item. Usually empty.
    pub values: Vec<String>,
    /// Enclosing inline module (none for the file).
    pub parent: Option<ModId>,
    /// Full path from the crate root, e.g. `["my_crate", "net", "inline"]`.
    pub path: Canon,
    /// Inline child modules by name.
    pub children: HashMap<String, ModId>,
}

/// The inline modules of one file.
#[derive(Debug, Clone)]
pub struct ModuleTree {
    modules: Vec<Module>,
}

/// Names declared directly in one block (`{ use ..; fn local() {} ... }`).
#[derive(Debug, Clone, Default)]
pub struct BlockScope {
    /// Names declared in the block.
    pub names: HashMap<String, Name>,
    /// Glob imports in the block.
    pub globs: Vec<Canon>,
    /// Value items whose name `names` gives to another namespace ([`Module::values`]).
    pub values: Vec<String>,
}

impl BlockScope {
    /// Collects the items and `use`s among a block's statements (nested blocks excluded).
    pub fn collect(stmts: &[syn::Stmt]) -> Self {
        let mut scope = BlockScope::default();
        for stmt in stmts {
            if let syn::Stmt::Item(item) = stmt {
                let mut sink = Sink {
                    names: &mut scope.names,
                    globs: &mut scope.globs,
                    values: &mut scope.values,
                };
                sink.item(item, None);
            }
        }
        scope
    }

    /// Whether the block declares nothing (the walker then skips pushing it).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.globs.is_empty()
    }
}

impl ModuleTree {
    /// Builds the tree of `file`, whose own module path is `file_path` (`[crate]` for a
    /// crate root, `[crate, "a", "b"]` for `src/a/b.rs`).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::resolve::scope::ModuleTree;
    /// let file: syn::File = syn::parse_str("mod rt { pub use tokio::spawn; }").unwrap();
    /// let tree = ModuleTree::build(&file.items, vec!["app".into()]);
    /// assert!(tree.local_module(&vec!["app".into(), "rt".into()]).is_some());
    /// ```
    pub fn build(items: &[syn::Item], file_path: Canon) -> Self {
        let mut tree = ModuleTree::new(file_path);
        tree.add_items(items);
        tree
    }

    /// An empty tree for a file whose module path is `file_path`.
    pub fn new(file_path: Canon) -> Self {
        ModuleTree {
            modules: vec![Module {
                path: file_path,
                ..Module::default()
            }],
        }
    }

    /// Adds top-level items of the file (a file may be fed item by item).
    pub fn add_items(&mut self, items: &[syn::Item]) {
        self.fill(ModId(0), items, 0);
    }

    fn fill(&mut self, id: ModId, items: &[syn::Item], depth: usize) {
        let mut names = HashMap::default();
        let mut globs = Vec::new();
        let mut inline = Vec::new();
        let mut values = Vec::new();
        {
            let mut sink = Sink {
                names: &mut names,
                globs: &mut globs,
                values: &mut values,
            };
            for item in items {
                sink.item(item, Some(&mut inline));
            }
        }
        for (name, content) in inline {
            if depth > 64 {
                names.insert(name, Name::Item);
                continue;
            }
            // two modules of one name are `cfg` alternatives (`#[cfg(unix)] mod imp {..}`
            // and `#[cfg(not(unix))] mod imp {..}`): one module with the names of both, so
            // neither loses its imports to the other
            let child = match self.modules[id.0].children.get(&name) {
                Some(&existing) => existing,
                None => {
                    let child = ModId(self.modules.len());
                    let mut path = self.modules[id.0].path.clone();
                    path.push(name.clone());
                    self.modules.push(Module {
                        parent: Some(id),
                        path,
                        ..Module::default()
                    });
                    self.modules[id.0].children.insert(name.clone(), child);
                    child
                }
            };
            // a value item of the name keeps it for one-segment value paths ([`Sink::item`])
            if names.insert(name.clone(), Name::Module(child)) == Some(Name::Value) {
                values.push(name);
            }
            self.fill(child, content, depth + 1);
        }
        let m = &mut self.modules[id.0];
        for (k, v) in names {
            m.names.entry(k).or_insert(v);
        }
        m.globs.extend(globs);
        m.values.extend(values);
    }

    /// The module with id `id`.
    pub fn get(&self, id: ModId) -> &Module {
        &self.modules[id.0]
    }

    /// Full path of module `id`.
    pub fn module_path(&self, id: ModId) -> Canon {
        self.modules[id.0].path.clone()
    }

    /// Module path of the file itself.
    pub fn file_module_path(&self) -> &Canon {
        &self.modules[0].path
    }

    /// The inline module with full path `path`, if it is in this file.
    pub fn local_module(&self, path: &Canon) -> Option<ModId> {
        let file = &self.modules[0].path;
        if path.len() < file.len() || path[..file.len()] != file[..] {
            return None;
        }
        let mut cur = ModId(0);
        for seg in &path[file.len()..] {
            cur = *self.modules[cur.0].children.get(seg)?;
        }
        Some(cur)
    }

    pub(crate) fn crate_root(&self) -> ModRef {
        let file = &self.modules[0].path;
        if file.len() <= 1 {
            ModRef::Local(ModId(0))
        } else {
            ModRef::Outside(file[..1].to_vec())
        }
    }

    pub(crate) fn parent(&self, m: ModRef) -> ModRef {
        match m {
            ModRef::Local(id) => match self.modules[id.0].parent {
                Some(p) => ModRef::Local(p),
                None => {
                    let file = &self.modules[0].path;
                    ModRef::Outside(
                        file[..file.len().saturating_sub(1).max(1.min(file.len()))].to_vec(),
                    )
                }
            },
            ModRef::Outside(mut p) => {
                if p.len() > 1 {
                    p.pop();
                }
                ModRef::Outside(p)
            }
        }
    }
}

struct Sink<'a> {
    names: &'a mut HashMap<String, Name>,
    globs: &'a mut Vec<Canon>,
    values: &'a mut Vec<String>,
}

impl Sink<'_> {
    fn item<'i>(
        &mut self,
        item: &'i syn::Item,
        inline: Option<&mut Vec<(String, &'i [syn::Item])>>,
    ) {
        let name = match item {
            syn::Item::Use(u) => {
                let mut prefix = Vec::new();
                if u.leading_colon.is_some() {
                    prefix.push("::".to_string());
                }
                self.use_tree(&u.tree, &mut prefix);
                return;
            }
            syn::Item::ExternCrate(e) => {
                let target = e.ident.to_string();
                let alias = e
                    .rename
                    .as_ref()
                    .map_or(target.clone(), |(_, i)| i.to_string());
                if target != "self" {
                    self.import(alias, vec!["::".to_string(), target]);
                }
                return;
            }
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                match (&m.content, inline) {
                    (Some((_, items)), Some(inline)) => {
                        inline.push((name, &items[..]));
                        return;
                    }
                    _ => name,
                }
            }
            syn::Item::Fn(f) => return self.value(f.sig.ident.to_string()),
            syn::Item::Const(c) => return self.value(c.ident.to_string()),
            syn::Item::Static(s) => return self.value(s.ident.to_string()),
            syn::Item::Struct(s) => s.ident.to_string(),
            syn::Item::Enum(e) => e.ident.to_string(),
            syn::Item::Union(u) => u.ident.to_string(),
            syn::Item::Type(t) => t.ident.to_string(),
            syn::Item::Trait(t) => t.ident.to_string(),
            syn::Item::TraitAlias(t) => t.ident.to_string(),
            syn::Item::Macro(m) => {
                // item-producing macros (`cfg_rt! { .. }`): their items when they parse;
                // `lazy_static! { static ref RT: Runtime = ..; }`'s statics
                if m.ident.is_none()
                    && !m.mac.path.is_ident("macro_rules")
                    && let Some(last) = m.mac.path.segments.last()
                {
                    let name = last.ident.to_string();
                    let items = crate::macros::item_macro_items(&name, m.mac.tokens.clone());
                    for it in items.iter().flatten() {
                        self.item(it, None);
                    }
                }
                return;
            }
            _ => return,
        };
        if let Some(Name::Value) = self.names.insert(name.clone(), Name::Item) {
            self.values.push(name);
        }
    }

    /// A value item: a type, module or import of the same name (another namespace) keeps
    /// the name, the value is noted beside it.
    fn value(&mut self, name: String) {
        match self.names.entry(name) {
            std::collections::hash_map::Entry::Occupied(e) => {
                if *e.get() != Name::Value {
                    self.values.push(e.key().clone());
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Name::Value);
            }
        }
    }

    fn import(&mut self, name: String, path: Canon) {
        if name == "_" {
            return;
        }
        // an item of the same name wins (they would conflict in Rust anyway), but for a
        // value, which lives in another namespace
        match self.names.entry(name) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                if *e.get() == Name::Value {
                    self.values.push(e.key().clone());
                    e.insert(Name::Import(path));
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Name::Import(path));
            }
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Canon) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    if let Some(last) = prefix.last().cloned() {
                        self.import(last, prefix.clone());
                    }
                } else {
                    let mut path = prefix.clone();
                    path.push(name.clone());
                    self.import(name, path);
                }
            }
            syn::UseTree::Rename(r) => {
                let name = r.ident.to_string();
                let path = if name == "self" {
                    prefix.clone()
                } else {
                    let mut p = prefix.clone();
                    p.push(name);
                    p
                };
                self.import(r.rename.to_string(), path);
            }
            syn::UseTree::Glob(_) => self.globs.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix);
                }
            }
        }
    }
}
