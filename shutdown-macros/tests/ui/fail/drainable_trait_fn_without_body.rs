trait Job {
    #[shutdown_runtime::drainable]
    fn run(&self);
}

fn main() {}
