#[shutdown_runtime::drainable]
async fn f(queue: &mut Vec<u32>) {
    #[drainable(idle)]
    while let Some(_job) = queue.pop() {}
}

fn main() {}
