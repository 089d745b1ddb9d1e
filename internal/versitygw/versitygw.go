// Package versitygw runs a real S3 server for a test: versitygw
// (github.com/versity/versitygw) on 127.0.0.1 with a temporary posix
// root, so that the S3 target is tested against a store that checks
// signatures, checksums and conditional writes as a real one does, not a
// fake. scripts/versitygw.sh builds the binary once, from a tools module
// of its own (tools/versitygw), into a cache folder; a test finds it by
// SPARK_VERSITYGW or in that folder, and skips, saying how to build it,
// when it is in neither. Nothing is downloaded when a test runs.
package versitygw

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The root account's key id and secret of every server Start runs.
const (
	Access = "spark-test-access"
	Secret = "spark-test-secret-0123456789"
)

// Server is a running versitygw.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Root     string // the posix folder that holds its buckets

	bin  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Options change how Start runs the server.
type Options struct {
	// IAM runs versitygw's internal IAM (accounts kept in a folder, no
	// cache), so that a test can make accounts besides the root one and
	// delete them (User, DeleteUser, BucketFor).
	IAM bool
}

// Bin is the versitygw binary: $SPARK_VERSITYGW, or the one
// scripts/versitygw.sh built into the user's cache folder; "" if neither.
func Bin() string {
	if p := os.Getenv("SPARK_VERSITYGW"); p != "" {
		return p
	}
	if c, err := os.UserCacheDir(); err == nil {
		p := filepath.Join(c, "spark", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start runs versitygw until the end of the test, skipping tb when there
// is no binary.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return StartWith(tb, Options{})
}

// StartWith is Start with options.
func StartWith(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("versitygw runs beside the Linux and macOS tests, not under Windows")
	}
	bin := Bin()
	if bin == "" {
		tb.Skip("no versitygw to test S3 against: run scripts/versitygw.sh (it builds it once, from the Go module proxy) or set SPARK_VERSITYGW=/path/to/versitygw")
	}
	s, err := Run(bin, tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Run runs the versitygw binary bin on a free port of 127.0.0.1 with its
// buckets, versions, accounts and log in the folder dir, and waits until
// it takes connections; Stop kills it. It is StartWith for what is not a
// test (the backup benchmark).
func Run(bin, dir string, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	root, versions, home, iam := filepath.Join(dir, "root"), filepath.Join(dir, "versions"), filepath.Join(dir, "home"), filepath.Join(dir, "iam")
	for _, d := range []string{root, versions, home, iam} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	// With a versioning folder, buckets can keep versions and lock
	// objects, as the issue asks the copy to be tested with.
	args := []string{"--access", Access, "--secret", Secret, "--port", addr, "--quiet"}
	if opts.IAM {
		// Without the cache, an account deleted is refused at once.
		args = append(args, "--iam-dir", iam, "--iam-cache-disable")
	}
	args = append(args, "posix", "--versioning-dir", versions, root)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	srv := &Server{Endpoint: "http://" + addr, Root: root, bin: bin, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); out.Close(); close(srv.done) }()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return srv, nil
		}
	}
	srv.Stop()
	b, _ := os.ReadFile(out.Name())
	return nil, fmt.Errorf("versitygw did not start on %s:\n%s", addr, b)
}

// Client is an S3 client of the server, as its root account.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(Access, Secret, ""),
	})
}

// Bucket makes the bucket name.
func (s *Server) Bucket(tb testing.TB, name string) {
	tb.Helper()
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		tb.Fatalf("make the bucket %s: %v", name, err)
	}
}

// LockedBucket makes the bucket name with object lock on (and so
// versioning): a locked object version cannot be deleted or overwritten
// until its retention ends.
func (s *Server) LockedBucket(tb testing.TB, name string) {
	tb.Helper()
	ctx := context.Background()
	c := s.Client()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		tb.Fatalf("make the locked bucket %s: %v", name, err)
	}
	if _, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{
		Bucket: aws.String(name),
		ObjectLockConfiguration: &types.ObjectLockConfiguration{
			ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{
				Mode: types.ObjectLockRetentionModeCompliance,
				Days: aws.Int32(1),
			}},
		},
	}); err != nil {
		tb.Fatalf("set the lock of %s: %v", name, err)
	}
}

// Env sets the standard AWS variables to the server's root account for
// the test, and keeps the user's own AWS files out of it.
func (s *Server) Env(tb testing.TB) {
	tb.Helper()
	dir := tb.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           Access,
		"AWS_SECRET_ACCESS_KEY":       Secret,
		"AWS_REGION":                  "us-east-1",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		tb.Setenv(k, v)
	}
}

// Stop stops the server (a store gone down) and waits for it to end.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// admin runs `versitygw admin` against the server as its root account.
func (s *Server) admin(tb testing.TB, args ...string) {
	tb.Helper()
	cmd := exec.Command(s.bin, append([]string{"admin", "--access", Access, "--secret", Secret, "--endpoint-url", s.Endpoint}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("versitygw admin %v: %v\n%s", args, err, out)
	}
}

// User makes an account (role user) of a server started with IAM.
func (s *Server) User(tb testing.TB, access, secret string) {
	tb.Helper()
	s.admin(tb, "create-user", "--access", access, "--secret", secret, "--role", "user")
}

// DeleteUser deletes the account access: its key is refused from then on.
func (s *Server) DeleteUser(tb testing.TB, access string) {
	tb.Helper()
	s.admin(tb, "delete-user", "--access", access)
}

// BucketFor makes the bucket name owned by the account owner.
func (s *Server) BucketFor(tb testing.TB, name, owner string) {
	tb.Helper()
	s.admin(tb, "create-bucket", "--owner", owner, "--bucket", name)
}
