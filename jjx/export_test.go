package jjx

// Unexported parts the external tests call.
var (
	CheckVersion     = checkVersion
	VersionCacheFile = versionCacheFile
)
