//! The real servers the shared store is tested against, each started on a free loopback port
//! with a private directory and killed when dropped: Debian's `redis-server` (tools/setup.sh),
//! moto's S3 server and Azurite's Blob server (tools/store-servers.sh, under
//! target/store-servers/). A missing server FAILS its tests under `CI=true`; elsewhere they say
//! so and return.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tunespec::store::{Options, Store};

use crate::reference::{in_ci, repo_root};

/// Azurite's well-known development account and key (its documentation's; not a secret).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// The bucket (container) every object-store test uses.
pub const BUCKET: &str = "tunespec-test";

/// A port the kernel just handed out and took back: free unless another process takes it in
/// between (then the server fails to start and the test says so).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something answers on `port`.
fn wait_listening(what: &str, port: u16) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{what} did not listen on port {port} in 30 s");
}

/// `path` if it is a file; otherwise `None` after a note, or a failure under `CI=true`.
fn installed(path: PathBuf, what: &str, installer: &str) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path);
    }
    assert!(
        !in_ci(),
        "{what} is required when CI=true ({installer} installs it; {} is missing)",
        path.display()
    );
    eprintln!("note: {what} not found ({installer}); this store test did not run");
    None
}

/// A server process of a test's own, killed when dropped.
pub struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn spawn(what: &str, command: &mut Command, port: u16, dir: tempfile::TempDir) -> Server {
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{what} starts: {e}"));
        let server = Server {
            child,
            port,
            _dir: dir,
        };
        wait_listening(what, port);
        server
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server at once (SIGKILL): a store that dies.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Debian's `redis-server`.
fn redis_binary() -> Option<PathBuf> {
    ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .or_else(|| {
            installed(
                PathBuf::from("/usr/bin/redis-server"),
                "redis-server",
                "tools/setup.sh",
            )
        })
}

/// A Redis server of the test's own.
pub struct Redis(pub Server);

impl Redis {
    /// Starts `redis-server` with `extra` arguments; `None` (after a note) when it is not
    /// installed outside CI.
    pub fn start(extra: &[&str]) -> Option<Redis> {
        let binary = redis_binary()?;
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut command = Command::new(binary);
        command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .args(extra);
        Some(Redis(Server::spawn(
            "redis-server",
            &mut command,
            port,
            dir,
        )))
    }

    /// Starts `redis-server` speaking TLS only, with a certificate for 127.0.0.1 made here by
    /// `openssl` (tools/setup.sh); the file of the CA that signed it, which a client trusts
    /// through `SSL_CERT_FILE`.
    pub fn start_tls() -> Option<(Redis, PathBuf)> {
        let binary = redis_binary()?;
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| dir.path().join(name);
        std::fs::write(
            file("leaf.ext"),
            "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
        )
        .unwrap();
        // A CA of the test's own, and the server's certificate it signs (a client refuses a
        // CA's certificate as a server's).
        let steps: [&[&str]; 3] = [
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=tunespec test CA",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
            ],
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "key.pem",
                "-out",
                "leaf.csr",
            ],
            &[
                "x509",
                "-req",
                "-in",
                "leaf.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "leaf.ext",
                "-out",
                "cert.pem",
            ],
        ];
        for step in steps {
            let made = Command::new("openssl")
                .args(step)
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("openssl runs (tools/setup.sh installs it)");
            assert!(made.success(), "openssl {step:?} failed");
        }
        let (cert, key) = (file("cert.pem"), file("key.pem"));
        let port = free_port();
        let mut command = Command::new(binary);
        command
            .args(["--port", "0", "--tls-port", &port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--tls-cert-file")
            .arg(&cert)
            .arg("--tls-key-file")
            .arg(&key)
            .args(["--tls-auth-clients", "no"])
            .arg("--dir")
            .arg(dir.path());
        let ca = file("ca.pem");
        let server = Server::spawn("redis-server (TLS)", &mut command, port, dir);
        Some((Redis(server), ca))
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.0.port)
    }

    /// Stops the server at once (SIGKILL): a store that dies.
    pub fn kill(&mut self) {
        self.0.kill();
    }
}

fn servers_dir() -> PathBuf {
    repo_root().join("target/store-servers")
}

/// moto's S3 server (tools/store-servers/moto_s3.py) with the bucket [`BUCKET`] made.
pub fn moto() -> Option<Server> {
    let server = moto_server(false)?;
    // moto takes unsigned requests: the bucket is made with a bare PUT.
    let status = http(server.port, &format!("PUT /{BUCKET} HTTP/1.1\r\n"), "");
    assert!(status.contains(" 200 "), "moto: {status}");
    Some(server)
}

/// moto's S3 server checking every request's access key as S3 does (moto's IAM mode,
/// `INITIAL_NO_AUTH_ACTION_COUNT=0`): it knows no key, so every request is refused.
pub fn moto_checking_keys() -> Option<Server> {
    moto_server(true)
}

fn moto_server(check_keys: bool) -> Option<Server> {
    let python = installed(
        servers_dir().join("moto/bin/python"),
        "moto's S3 server",
        "tools/store-servers.sh",
    )?;
    let port = free_port();
    let mut command = Command::new(python);
    command
        .arg(repo_root().join("tools/store-servers/moto_s3.py"))
        .arg(port.to_string());
    if check_keys {
        command.env("INITIAL_NO_AUTH_ACTION_COUNT", "0");
    }
    Some(Server::spawn(
        "moto",
        &mut command,
        port,
        tempfile::tempdir().unwrap(),
    ))
}

/// The variables that point the S3 engine at moto on `port` (any key: moto checks none).
pub fn s3_env(port: u16) -> Vec<(String, String)> {
    [
        ("AWS_ACCESS_KEY_ID", "test-key".to_string()),
        ("AWS_SECRET_ACCESS_KEY", "test-secret".to_string()),
        ("AWS_REGION", "us-east-1".to_string()),
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".to_string()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
}

/// Azurite's Blob server, in memory, with the container [`BUCKET`] made.
pub fn azurite() -> Option<Server> {
    let node = installed(
        servers_dir().join("azurite/node_modules/.bin/azurite-blob"),
        "Azurite",
        "tools/store-servers.sh",
    )?;
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(node);
    command
        .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
        .args(["--inMemoryPersistence", "--silent", "--skipApiVersionCheck"])
        .current_dir(dir.path());
    let server = Server::spawn("Azurite", &mut command, port, dir);
    create_container(port);
    Some(server)
}

/// The variables that point the Azure engine at Azurite on `port` with `key`.
pub fn azure_env(port: u16, key: &str) -> Vec<(String, String)> {
    [
        ("AZURE_STORAGE_ACCOUNT_NAME", AZURITE_ACCOUNT.to_string()),
        ("AZURE_STORAGE_ACCOUNT_KEY", key.to_string()),
        (
            "AZURE_STORAGE_ENDPOINT",
            format!("http://127.0.0.1:{port}/{AZURITE_ACCOUNT}"),
        ),
        ("AZURE_ALLOW_HTTP", "true".to_string()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
}

/// The account key of Azurite's development account.
pub fn azurite_key() -> &'static str {
    AZURITE_KEY
}

/// Creates [`BUCKET`] on Azurite: a `Create Container` request signed with the account's
/// Shared Key, as Azure's REST API documents it.
fn create_container(port: u16) {
    use base64::Engine as _;
    let date = httpdate_now();
    let version = "2021-08-06";
    let to_sign = format!(
        "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{version}\n/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{BUCKET}\nrestype:container"
    );
    let key = base64::engine::general_purpose::STANDARD
        .decode(AZURITE_KEY)
        .unwrap();
    let tag = ring::hmac::sign(
        &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key),
        to_sign.as_bytes(),
    );
    let signature = base64::engine::general_purpose::STANDARD.encode(tag.as_ref());
    let head = format!(
        "PUT /{AZURITE_ACCOUNT}/{BUCKET}?restype=container HTTP/1.1\r\nx-ms-date: {date}\r\nx-ms-version: {version}\r\nAuthorization: SharedKey {AZURITE_ACCOUNT}:{signature}\r\n"
    );
    let status = http(port, &head, "");
    assert!(status.contains(" 201 "), "Azurite: {status}");
}

/// Now as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn httpdate_now() -> String {
    let output = Command::new("date")
        .args(["-u", "+%a, %d %b %Y %H:%M:%S GMT"])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// Sends one HTTP/1.1 request (`head`: the request line and headers, each ending in CRLF) with
/// `body` to `127.0.0.1:port`; the response's status line.
fn http(port: u16, head: &str, body: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let request = format!(
        "{head}Host: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response.lines().next().unwrap_or_default().to_string()
}

/// A store to test on: its URL, the variables its engine needs, and its server.
pub struct Engine {
    pub name: &'static str,
    pub url: String,
    pub vars: Vec<(String, String)>,
    pub server: Option<Server>,
}

impl Engine {
    /// The store, opened in this process.
    pub fn open(&self) -> Store {
        let options = Options {
            engine_variables: self.vars.clone(),
            ..Options::default()
        };
        Store::open(&self.url, &options).unwrap()
    }

    /// The variables, for a `tunespec` process.
    pub fn env(&self) -> Vec<(&str, &str)> {
        self.vars
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect()
    }

    /// The store's URL in `namespace`.
    pub fn in_namespace(&self, namespace: &str) -> String {
        format!("{}?namespace={namespace}", self.url)
    }
}

/// Every engine: Redis, a directory under `work`, S3 (moto) and Azure (Azurite); `None` when a
/// server is missing outside CI.
pub fn engines(work: &Path) -> Option<Vec<Engine>> {
    let redis = Redis::start(&[])?;
    let moto = moto()?;
    let azurite = azurite()?;
    let (moto_port, azurite_port) = (moto.port, azurite.port);
    Some(vec![
        Engine {
            name: "redis",
            url: redis.url(),
            vars: Vec::new(),
            server: Some(redis.0),
        },
        Engine {
            name: "file",
            url: format!("file://{}", work.join("file-store").display()),
            vars: Vec::new(),
            server: None,
        },
        Engine {
            name: "s3",
            url: format!("s3://{BUCKET}/team"),
            vars: s3_env(moto_port),
            server: Some(moto),
        },
        Engine {
            name: "azblob",
            url: format!("azblob://{BUCKET}"),
            vars: azure_env(azurite_port, AZURITE_KEY),
            server: Some(azurite),
        },
    ])
}
