package backup

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// S3 is a Target kept in a bucket of any S3-compatible store (AWS,
// Backblaze B2, Wasabi, versitygw, MinIO): each object at PREFIX/name.
// A Put is create-only (If-None-Match: *) and carries the body's SHA-256
// (x-amz-checksum-sha256), so the store refuses a torn body and never
// overwrites an object; S3 deletes nothing. Where the bucket keeps
// versions or locks objects, that guards the copy against the key's
// holder too; this target only never asks for a delete.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or ending in '/'
	endpoint string // "" for AWS
}

var _ Target = (*S3)(nil)

var (
	// ErrDenied is returned by the S3 target when the store refuses the
	// credentials, or they may not do what the copy needs.
	ErrDenied = errors.New("backup: the store refused the credentials")
	// ErrNoBucket is returned by the S3 target when the bucket is not
	// there.
	ErrNoBucket = errors.New("backup: the bucket does not exist")
	// ErrUnreachable is returned by the S3 target when the store does
	// not answer: it is down, or the address is wrong.
	ErrUnreachable = errors.New("backup: the store does not answer")
)

// How long a call may take: a request without a body (a listing page, a
// HEAD), and the least speed a body must keep (a home uplink is slow,
// a stalled one is not).
const (
	callTimeout = time.Minute
	minSpeed    = 64 << 10 // bytes a second
)

// Options are what a target's address does not say.
type Options struct {
	// Endpoint is the URL of an S3-compatible store that is not AWS
	// (--backup-endpoint); it is addressed path-style
	// (ENDPOINT/BUCKET/KEY). Empty is AWS.
	Endpoint string
	// KeyID and Secret, when KeyID is set, are the store's access key,
	// used instead of the standard AWS chain: the app's Settings keep
	// them, where no AWS_* variable or ~/.aws file is set up.
	KeyID  string
	Secret string
	// Region, when set, is the store's region; empty takes AWS_REGION,
	// or us-east-1 for a store at Endpoint.
	Region string
}

// OpenS3 opens the bucket and prefix of an s3://BUCKET/PREFIX address
// as a Target, with the key and region opts gives, or else from the
// standard AWS chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_REGION, the shared config and credentials files). It sends
// nothing: the first call tells whether the store answers and lets in.
func OpenS3(ctx context.Context, bucket, prefix string, opts Options) (*S3, error) {
	if bucket == "" {
		return nil, fmt.Errorf("backup: the target names no bucket; write s3://BUCKET/PREFIX")
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	httpClient := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 10 * time.Second }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout = 10 * time.Second
			t.ResponseHeaderTimeout = callTimeout
		})
	load := []func(*config.LoadOptions) error{config.WithHTTPClient(httpClient)}
	if opts.KeyID != "" {
		load = append(load, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(opts.KeyID, opts.Secret, "")))
	}
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("backup: read the AWS configuration (AWS_* variables, ~/.aws/config): %w", err)
	}
	if cfg.Region == "" {
		if opts.Endpoint == "" {
			return nil, fmt.Errorf("backup: s3://%s: say which AWS region the bucket is in with AWS_REGION (e.g. AWS_REGION=eu-west-1)", bucket)
		}
		cfg.Region = "us-east-1" // what most S3-compatible stores take
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
			o.UsePathStyle = true
		}
		// The body carries its SHA-256, which Put sets; the SDK adds no
		// checksum of its own and does not check one on a Get (Restore
		// checks every byte against its SHA-256 anyway).
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &S3{client: client, bucket: bucket, prefix: prefix, endpoint: opts.Endpoint}, nil
}

func (s *S3) String() string {
	u := "s3://" + s.bucket + "/" + strings.TrimSuffix(s.prefix, "/")
	if s.endpoint != "" {
		u += " at " + s.endpoint
	}
	return u
}

func (s *S3) key(name string) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("backup: %q is not an object name", name)
	}
	return s.prefix + name, nil
}

// Put implements Target.
func (s *S3) Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout+time.Duration(size/minSpeed)*time.Second)
	defer cancel()
	b64 := base64.StdEncoding.EncodeToString(sum[:])
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:            &s.bucket,
		Key:               &key,
		Body:              body,
		ContentLength:     &size,
		IfNoneMatch:       aws.String("*"),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    &b64,
	}, payloadHash(body, sum))
	switch code := apiCode(err); {
	case err == nil:
		return nil
	case code == "PreconditionFailed" || code == "ConditionalRequestConflict":
		return s.same(ctx, name, key, size, b64)
	case code == "BadDigest" || code == "XAmzContentChecksumMismatch" || code == "XAmzContentSHA256Mismatch" || code == "InvalidDigest" || code == "IncompleteBody":
		// (XAmzContentSHA256Mismatch: the body is not the sum it was
		// signed with, see payloadHash.)
		return fmt.Errorf("%w: %s: the store said %s", ErrBadBody, name, code)
	case strings.Contains(err.Error(), "ContentLength") && strings.Contains(err.Error(), "Body length"):
		// net/http's own refusal of a body shorter than it said.
		return fmt.Errorf("%w: %s: %d bytes expected, fewer read", ErrBadBody, name, size)
	}
	return s.fail("put "+name, err)
}

// payloadHash leaves the body out of the request's signature when it
// cannot be read twice: the SHA-256 header, signed, guards it instead.
// A body that can be read twice is signed, as every store accepts, with
// sum, the SHA-256 of its bytes that the caller already holds: the SDK
// would otherwise read the whole body once more to hash it before
// sending it. The store checks the body against it as before.
func payloadHash(body io.Reader, sum [32]byte) func(*s3.Options) {
	return func(o *s3.Options) {
		if _, ok := body.(io.ReadSeeker); !ok {
			o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
			return
		}
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			_, err := stack.Finalize.Swap((&v4.ComputePayloadSHA256{}).ID(), knownPayloadHash(hex.EncodeToString(sum[:])))
			return err
		})
	}
}

// knownPayloadHash signs a request with a payload hash given, in place of
// v4.ComputePayloadSHA256.
type knownPayloadHash string

func (knownPayloadHash) ID() string { return "SparkKnownPayloadHash" }

func (h knownPayloadHash) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	return next.HandleFinalize(v4.SetPayloadHash(ctx, string(h)), in)
}

// same tells whether the object already at key holds the bytes of size
// and sum (b64): "already there" (nil) or ErrConflict. It asks for the
// object's stored SHA-256, and reads and hashes the object when the
// store keeps none.
func (s *S3) same(ctx context.Context, name, key string, size int64, b64 string) error {
	head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		return s.fail("put "+name+": look at the object there", err)
	}
	if aws.ToInt64(head.ContentLength) != size {
		return fmt.Errorf("%w: %s", ErrConflict, name)
	}
	if c := aws.ToString(head.ChecksumSHA256); c != "" && !strings.Contains(c, "-") {
		if c != b64 {
			return fmt.Errorf("%w: %s", ErrConflict, name)
		}
		return nil
	}
	rc, err := s.Get(ctx, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return s.fail("put "+name+": read the object there", err)
	}
	if base64.StdEncoding.EncodeToString(h.Sum(nil)) != b64 {
		return fmt.Errorf("%w: %s", ErrConflict, name)
	}
	return nil
}

// Get implements Target. The body's read is bounded by its pace: a
// minute without a byte ends it.
func (s *S3) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{cancel: cancel}
	w.timer = time.AfterFunc(callTimeout, cancel)
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		w.Close()
		return nil, s.fail("get "+name, err)
	}
	w.r = out.Body
	return w, nil
}

// watchdog ends a body's read (through its context) when no byte came
// for callTimeout.
type watchdog struct {
	r      io.ReadCloser
	timer  *time.Timer
	cancel context.CancelFunc
	once   sync.Once
}

func (w *watchdog) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.timer.Reset(callTimeout)
	}
	return n, err
}

func (w *watchdog) Close() error {
	var err error
	w.once.Do(func() {
		w.timer.Stop()
		if w.r != nil {
			err = w.r.Close()
		}
		w.cancel()
	})
	return err
}

// Stat implements Target.
func (s *S3) Stat(ctx context.Context, name string) (int64, error) {
	key, err := s.key(name)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return 0, s.fail("stat "+name, err)
	}
	return aws.ToInt64(head.ContentLength), nil
}

// List implements Target: S3 lists in byte order of the keys, a page of
// up to 1,000 at a time, each page bounded in time. Names that are not
// the copy's (something else put under the prefix) are skipped.
func (s *S3) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)}
	pages := s3.NewListObjectsV2Paginator(s.client, in)
	for pages.HasMorePages() {
		page, err := s.page(ctx, pages)
		if err != nil {
			return s.fail("list "+s.prefix+prefix, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if !validName(name) {
				continue
			}
			if err := fn(name, aws.ToInt64(o.Size)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *S3) page(ctx context.Context, pages *s3.ListObjectsV2Paginator) (*s3.ListObjectsV2Output, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return pages.NextPage(ctx)
}

// apiCode is the S3 error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// fail turns an SDK error into one of the package's: ErrNotFound, or a
// sentence a person can act on (ErrDenied, ErrNoBucket, ErrUnreachable),
// or the error wrapped with what was being done.
func (s *S3) fail(op string, err error) error {
	where := s.String()
	var ae smithy.APIError
	var send *smithy.OperationError
	switch code := apiCode(err); code {
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%w: %s", ErrNotFound, strings.TrimPrefix(strings.TrimPrefix(op, "get "), "stat "))
	case "NoSuchBucket":
		return &s3Error{ErrNoBucket, fmt.Sprintf("backup: %s: the bucket %q does not exist; make it in the store (or check its name and --backup-endpoint)", where, s.bucket), err}
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "TokenRefreshRequired", "AuthorizationHeaderMalformed":
		return &s3Error{ErrDenied, fmt.Sprintf("backup: %s: the store refused the key id or secret (%s); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the profile in ~/.aws/credentials)", where, code), err}
	case "AccessDenied", "AllAccessDisabled", "Forbidden":
		return &s3Error{ErrDenied, fmt.Sprintf("backup: %s: the store let the key in but not to %s (%s); give it s3:ListBucket, s3:GetObject and s3:PutObject on the bucket", where, strings.Fields(op)[0], code), err}
	}
	switch {
	case errors.As(err, &ae):
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("backup: %s: %s: %w", where, op, err)
	case errors.Is(err, context.DeadlineExceeded):
		return &s3Error{ErrUnreachable, fmt.Sprintf("backup: %s: %s took too long: the store or the network is too slow or stalled; try again later", where, op), err}
	case strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "failed to refresh cached credentials"):
		return &s3Error{ErrDenied, fmt.Sprintf("backup: %s: no credentials to sign with; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or a profile in ~/.aws/credentials)", where), err}
	case errors.As(err, &send) && isNetErr(err):
		addr := s.endpoint
		if addr == "" {
			addr = "AWS"
		}
		return &s3Error{ErrUnreachable, fmt.Sprintf("backup: %s: cannot reach the store at %s; is it running, and is the address right (--backup-endpoint)?", where, addr), err}
	}
	return fmt.Errorf("backup: %s: %s: %w", where, op, err)
}

func isNetErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de) || errors.As(err, &ne)
}

// s3Error is a sentence for people that is also one of the sentinels and
// keeps the SDK's error beneath it.
type s3Error struct {
	kind error
	msg  string
	err  error
}

func (e *s3Error) Error() string   { return e.msg }
func (e *s3Error) Unwrap() []error { return []error{e.kind, e.err} }
