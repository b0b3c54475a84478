package corpus

// The vocabulary, most frequent first: the generator draws words from it
// with a Zipf distribution (the word of index k has weight 1/(k+2)^1.07:
// rand.NewZipf(r, 1.07, 2, …)), so a few
// words are in most messages and the tail is rare, as in real transcripts.
// "docker" and "kubernetes" sit near the top on purpose: the query
// "docker kubernetes" matches about half the messages, as the issue's
// measurement did (52k of 103k), which is the ranked-search worst case.
var words = []string{
	"the", "to", "docker", "kubernetes", "and", "a", "is", "of", "in", "for",
	"it", "this", "that", "on", "with", "we", "can", "be", "not", "file",
	"error", "you", "run", "config", "i", "use", "test", "build", "from", "if",
	"now", "add", "check", "server", "as", "are", "should", "function", "code", "but",
	"will", "then", "here", "image", "container", "cluster", "pod", "deploy", "service", "node",
	"python", "go", "version", "log", "output", "command", "update", "line", "path", "api",
	"request", "response", "data", "database", "query", "table", "index", "user", "value", "name",
	"type", "return", "string", "list", "key", "port", "network", "volume", "env", "variable",
	"script", "module", "package", "install", "dependency", "import", "class", "method", "object", "field",
	"timeout", "retry", "failed", "works", "fix", "issue", "bug", "change", "commit", "branch",
	"merge", "review", "pull", "push", "repo", "git", "main", "release", "tag", "ci",
	"pipeline", "job", "step", "stage", "cache", "layer", "registry", "helm", "chart", "namespace",
	"deployment", "replica", "ingress", "secret", "configmap", "manifest", "yaml", "json", "schema", "migration",
	"sqlite", "postgres", "redis", "queue", "worker", "thread", "process", "memory", "cpu", "disk",
	"latency", "throughput", "benchmark", "profile", "trace", "metric", "alert", "monitor", "dashboard", "grafana",
	"prometheus", "nginx", "proxy", "tls", "certificate", "dns", "host", "socket", "connection", "client",
	"session", "token", "auth", "permission", "role", "policy", "account", "password", "ssh", "shell",
	"bash", "terminal", "directory", "folder", "permissions", "owner", "group", "linux", "ubuntu", "debian",
	"alpine", "kernel", "systemd", "cron", "schedule", "backup", "restore", "snapshot", "storage", "bucket",
	"upload", "download", "stream", "buffer", "batch", "parallel", "concurrent", "lock", "mutex", "channel",
	"goroutine", "async", "await", "promise", "callback", "event", "handler", "listener", "route", "endpoint",
	"middleware", "router", "controller", "model", "view", "template", "render", "html", "css", "javascript",
	"typescript", "react", "node_modules", "npm", "yarn", "webpack", "bundle", "compile", "compiler", "linker",
	"binary", "artifact", "target", "flag", "option", "argument", "parameter", "default", "override", "patch",
	"diff", "hunk", "conflict", "rebase", "stash", "checkout", "clone", "fork", "upstream", "remote",
	"origin", "history", "rollback", "revert", "hotfix", "feature", "refactor", "cleanup", "lint", "format",
	"vet", "race", "panic", "stack", "frame", "crash", "segfault", "signal", "exit", "status",
	"code", "warning", "debug", "info", "verbose", "quiet", "silent", "loglevel", "stderr", "stdout",
	"pipe", "redirect", "grep", "sed", "awk", "curl", "wget", "jq", "make", "makefile",
	"dockerfile", "compose", "swarm", "kubectl", "minikube", "kind", "terraform", "ansible", "vagrant", "packer",
	"aws", "gcp", "azure", "lambda", "ec2", "s3", "iam", "vpc", "subnet", "gateway",
	"loadbalancer", "autoscaler", "hpa", "probe", "liveness", "readiness", "restart", "crashloop", "backoff", "evicted",
	"quota", "limit", "request", "scheduler", "taint", "toleration", "affinity", "daemonset", "statefulset", "cronjob",
	"operator", "crd", "webhook", "admission", "controller", "reconcile", "informer", "lease", "etcd", "apiserver",
	"kubelet", "containerd", "runc", "cgroup", "seccomp", "apparmor", "selinux", "capability", "rootless", "overlay",
	"mount", "bind", "tmpfs", "inode", "fsync", "journal", "wal", "checkpoint", "vacuum", "pragma",
	"transaction", "commit", "isolation", "snapshot", "consistency", "replication", "leader", "follower", "quorum", "raft",
	"shard", "partition", "offset", "consumer", "producer", "topic", "kafka", "rabbitmq", "nats", "grpc",
	"protobuf", "rest", "graphql", "openapi", "swagger", "sdk", "cli", "tui", "gui", "editor",
	"vim", "emacs", "vscode", "plugin", "extension", "theme", "font", "keybinding", "shortcut", "macro",
	"regex", "pattern", "match", "search", "replace", "parse", "parser", "lexer", "token", "ast",
	"tree", "graph", "vertex", "edge", "path", "cycle", "sort", "hash", "map", "set",
	"array", "slice", "vector", "matrix", "tensor", "gradient", "training", "inference", "embedding", "prompt",
	"completion", "context", "window", "chunk", "retrieval", "ranking", "score", "similarity", "cosine", "distance",
	"latency", "p99", "percentile", "histogram", "counter", "gauge", "sampling", "flamegraph", "pprof", "allocation",
	"garbage", "collector", "heap", "leak", "oom", "swap", "pagecache", "readahead", "iops", "nvme",
	"raid", "zfs", "btrfs", "ext4", "xfs", "lvm", "partition", "bootloader", "grub", "uefi",
	"firmware", "driver", "module", "dkms", "nvidia", "cuda", "gpu", "tpu", "accelerator", "quantization",
	"deadline", "context", "cancel", "propagate", "wrap", "unwrap", "sentinel", "errors", "typed", "interface",
	"struct", "pointer", "reference", "borrow", "lifetime", "trait", "generic", "closure", "iterator", "generator",
	"decorator", "fixture", "mock", "stub", "assert", "coverage", "fuzz", "property", "regression", "golden",
	"flaky", "intermittent", "reproduce", "bisect", "workaround", "mitigation", "postmortem", "incident", "oncall", "pager",
}

// cjkPhrases are the sentences of the CJK messages (Chinese, Japanese,
// Korean). The first two phrases carry the search benchmark's terms: the
// four-character 记忆断裂 (the trigram route) and the two-character 通信
// (the short-CJK LIKE route).
var cjkPhrases = []string{
	"上下文压缩之后出现了记忆断裂的问题",
	"服务之间的通信超时了",
	"请帮我检查容器的日志",
	"数据库连接池已经满了",
	"部署到集群之后服务无法启动",
	"这个配置文件的格式不对",
	"测试在本地通过但是在流水线里失败",
	"内存使用一直在增长",
	"ログの出力を確認してください",
	"コンテナが再起動を繰り返しています",
	"設定ファイルを更新しました",
	"빌드가 실패했습니다",
	"데이터베이스 연결을 확인해 주세요",
}

// rareWord is in exactly RareCount messages of every corpus.
const rareWord = "zebrafish"

var (
	sources    = []string{"cli", "cli", "cli", "cli", "cli", "telegram", "telegram", "discord", "slack", "cron", "acp", "whatsapp"}
	models     = []string{"anthropic/claude-sonnet-4", "anthropic/claude-opus-4", "openai/gpt-5", "google/gemini-2.5-pro", "nousresearch/hermes-4-405b"}
	toolNames  = []string{"terminal", "read_file", "write_file", "patch", "search_files", "web_search", "browser_navigate", "execute_code", "todo", "memory"}
	finishes   = []string{"stop", "stop", "stop", "tool_calls", "length"}
	cwds       = []string{"/home/dev/src/api", "/home/dev/src/web", "/home/dev/src/infra", "/home/dev/notes", "/srv/app", "/home/dev/src/hermes"}
	branches   = []string{"main", "main", "dev", "feature/search", "fix/timeout", "release/2.1"}
	shortTexts = []string{"ok", "thanks", "yes", "continue", "go ahead", "looks good", "retry", "stop", "why?", "and the logs?"}
)
