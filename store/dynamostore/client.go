package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ClientOptions configure NewClient. Zero values defer to the SDK's standard
// configuration (environment, shared config and credentials files, SSO,
// instance roles).
type ClientOptions struct {
	// Endpoint is the base URL, e.g. http://127.0.0.1:8000 for DynamoDB
	// Local. Empty uses AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL or the
	// shared config's endpoint_url, else AWS's regional endpoint.
	Endpoint string
	// Region; empty uses AWS_REGION / the profile's region. A local endpoint
	// without one gets us-east-1 (DynamoDB Local ignores it).
	Region string
	// Profile is the shared config profile; empty uses AWS_PROFILE/default.
	Profile string
	// MaxAttempts is the SDK retryer's attempt limit per call (1 disables
	// retries); 0 keeps the SDK default.
	MaxAttempts int
}

// localRegion is what a local endpoint gets when no region is configured.
const localRegion = "us-east-1"

// credentialProbeTimeout bounds the check for configured credentials when
// the endpoint is local, where a slow chain would only delay a fallback.
const credentialProbeTimeout = 2 * time.Second

// maxIdleConnsPerHost replaces the SDK default of 10 idle connections per
// host: chatseq runs many workers against one endpoint, and a pool smaller
// than the worker count makes every call beyond it open a new connection.
const maxIdleConnsPerHost = 256

// NewClient builds a DynamoDB client with the standard credential chain. For
// a localhost endpoint with no credentials configured it uses static dummy
// credentials, since DynamoDB Local only needs a well-formed signature.
// Credentials are never logged or put in errors.
func NewClient(ctx context.Context, opts ClientOptions) (*dynamodb.Client, error) {
	load := []func(*config.LoadOptions) error{
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		})),
	}
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(opts.Profile))
	}
	if opts.MaxAttempts < 0 {
		return nil, fmt.Errorf("dynamostore: MaxAttempts %d: must be 0 (SDK default) or more", opts.MaxAttempts)
	}
	if opts.MaxAttempts > 0 {
		load = append(load, config.WithRetryMaxAttempts(opts.MaxAttempts))
	}
	if isLocalEndpoint(firstNonEmpty(opts.Endpoint, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), os.Getenv("AWS_ENDPOINT_URL"))) {
		// A local server has no instance role; probing instance metadata
		// would only stall the credential check below.
		load = append(load, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: load AWS config: %w", err)
	}
	withEndpoint := func(o *dynamodb.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
	}
	// The SDK resolves AWS_ENDPOINT_URL_DYNAMODB and friends while building
	// the client, so ask the client which endpoint it ended up with.
	endpoint := aws.ToString(dynamodb.NewFromConfig(cfg, withEndpoint).Options().BaseEndpoint)
	if !isLocalEndpoint(endpoint) {
		if cfg.Region == "" {
			return nil, errors.New("dynamostore: no AWS region configured (set the region option, AWS_REGION, or a profile region)")
		}
		return dynamodb.NewFromConfig(cfg, withEndpoint), nil
	}
	if cfg.Region == "" {
		cfg.Region = localRegion
	}
	if !hasCredentials(ctx, cfg) {
		cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
	}
	return dynamodb.NewFromConfig(cfg, withEndpoint, func(o *dynamodb.Options) {
		// DynamoDB Local sends no x-amz-crc32 header on error responses, and
		// this SDK version then checks the body against 0 and logs a warning
		// for every failed condition (aws-sdk-go-v2 issue 3545). Over
		// loopback there is no network to corrupt the bytes.
		o.DisableValidateResponseChecksum = true
	}), nil
}

// hasCredentials reports whether the standard chain yields credentials.
func hasCredentials(ctx context.Context, cfg aws.Config) bool {
	if cfg.Credentials == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, credentialProbeTimeout)
	defer cancel()
	_, err := cfg.Credentials.Retrieve(ctx)
	return err == nil
}

// isLocalEndpoint reports an endpoint on this machine: localhost or a
// loopback address.
func isLocalEndpoint(endpoint string) bool {
	if endpoint == "" {
		return false
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
