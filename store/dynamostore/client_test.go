package dynamostore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// isolateAWSConfig points the SDK's standard configuration at nothing, so a
// developer's own AWS setup cannot change what these tests see.
func isolateAWSConfig(t *testing.T) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "none")
	for _, v := range []string{
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestNewClientHonoursEndpointEnvironment(t *testing.T) {
	isolateAWSConfig(t)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", testServer.Endpoint())
	ctx := context.Background()
	client, err := NewClient(ctx, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(client.Options().BaseEndpoint); got != testServer.Endpoint() {
		t.Fatalf("BaseEndpoint = %q, want %q from AWS_ENDPOINT_URL_DYNAMODB", got, testServer.Endpoint())
	}
	if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables through AWS_ENDPOINT_URL_DYNAMODB: %v", err)
	}
}

// With nothing configured, a local endpoint still works: dummy credentials
// and a default region.
func TestNewClientUsesDummyCredentialsForLocalEndpoint(t *testing.T) {
	isolateAWSConfig(t)
	ctx := context.Background()
	client, err := NewClient(ctx, ClientOptions{Endpoint: testServer.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := client.Options().Credentials.Retrieve(ctx)
	if err != nil || creds.AccessKeyID != "local" {
		t.Fatalf("credentials for a local endpoint with none configured: access key %q, %v; want the dummy", creds.AccessKeyID, err)
	}
	if r := client.Options().Region; r != localRegion {
		t.Fatalf("region %q, want %q", r, localRegion)
	}
	if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}

// Configured credentials win over the dummy, even for a local endpoint.
func TestNewClientKeepsConfiguredCredentials(t *testing.T) {
	isolateAWSConfig(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDCHATSEQTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
	client, err := NewClient(context.Background(), ClientOptions{Endpoint: testServer.Endpoint(), Region: "eu-west-1", MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := client.Options()
	creds, err := o.Credentials.Retrieve(context.Background())
	if err != nil || creds.AccessKeyID != "AKIDCHATSEQTEST" {
		t.Fatalf("access key %q, %v; want the one from the environment", creds.AccessKeyID, err)
	}
	if o.Region != "eu-west-1" {
		t.Errorf("region %q, want eu-west-1", o.Region)
	}
	if o.RetryMaxAttempts != 2 {
		t.Errorf("RetryMaxAttempts %d, want 2", o.RetryMaxAttempts)
	}
}

func TestNewClientNeedsARegionForAWS(t *testing.T) {
	isolateAWSConfig(t)
	_, err := NewClient(context.Background(), ClientOptions{})
	if err == nil || !strings.Contains(err.Error(), "region") {
		t.Fatalf("NewClient with no region and no endpoint: %v, want a region error", err)
	}
	if _, err := NewClient(context.Background(), ClientOptions{Region: "us-east-1", MaxAttempts: -1}); err == nil {
		t.Fatal("NewClient accepted MaxAttempts -1")
	}
}

func TestIsLocalEndpoint(t *testing.T) {
	for endpoint, want := range map[string]bool{
		"http://localhost:8000":                    true,
		"http://127.0.0.1:8000":                    true,
		"http://[::1]:8000":                        true,
		"https://dynamodb.us-east-1.amazonaws.com": false,
		"http://10.0.0.5:8000":                     false,
		"":                                         false,
		"not a url":                                false,
	} {
		if got := isLocalEndpoint(endpoint); got != want {
			t.Errorf("isLocalEndpoint(%q) = %v, want %v", endpoint, got, want)
		}
	}
}
