package cmd

import (
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/storeopen"
)

// addStoreFlags registers the flags that choose and reach a store.
func addStoreFlags(fl *pflag.FlagSet, o *storeopen.Options) {
	o.Kind = storeopen.Memory
	fl.StringVar(&o.Kind, "store", o.Kind, "store: memory (embedded), dynamodb (tables from 'chatseq setup'), or dynamodb-local (started by chatseq)")
	fl.StringVar(&o.Endpoint, "endpoint", "", "DynamoDB endpoint URL (default: AWS_ENDPOINT_URL_DYNAMODB, the profile's endpoint_url, or AWS)")
	fl.StringVar(&o.Region, "region", "", "AWS region (default: AWS_REGION or the profile's)")
	fl.StringVar(&o.Profile, "profile", "", "AWS shared config profile (default: AWS_PROFILE)")
	fl.IntVar(&o.MaxAttempts, "sdk-max-attempts", 0, "attempts per DynamoDB call by the SDK's retryer, 1 = no retries (default: the SDK's); its retries change what a client observes")
	fl.StringVar(&o.TablePrefix, "table-prefix", "chatseq_", "prefix of every DynamoDB table chatseq uses")
}

// withStatus is o telling status what it starts (DynamoDB Local).
func withStatus(o storeopen.Options, status io.Writer) storeopen.Options {
	o.Status = status
	return o
}

// runChatPrefix makes chat ids unique to this run on shared tables.
func runChatPrefix() string {
	return "run" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-chat-"
}
