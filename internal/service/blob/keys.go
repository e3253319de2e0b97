package blob

// The layout of the keys, the same as the data directory's before keys:
//
//	media/<projectId>/source.mp4         a project's imported source
//	media/<projectId>/<clipId>.mp4 ...   its renders and captions
//	uploads/<uploadId>.bin               a resumable upload's bytes
//	uploads/parts/<uploadId>/<session>/  its chunks while it arrives, on a bucket
//	published/<postAccountId>/<postId>/  a post published to the "dir" destination:
//	                                     clip.mp4 (its clip) and post.json (its record)
//	broll/<orgId>/<itemId><.ext>         a picture of an org's b-roll library
//	installation/marker.json             the installation the media belong to
//	installation/probe-<random>          written and deleted by a process at start
const (
	mediaRoot     = "media/"
	uploadsRoot   = "uploads/"
	publishedRoot = "published/"
	brollRoot     = "broll/"
	// installationRoot holds the installation's marker (package install)
	// and the probes processes write at start; a move or a backup of the
	// media carries the marker with them.
	installationRoot = "installation/"
)

// BrollKey is the key of a b-roll item's picture; ext (".png", ".mp4"...)
// keeps the kind of file visible.
func BrollKey(org, item, ext string) string { return brollRoot + org + "/" + item + ext }

// InstallationMarkerKey is the object that names the installation the
// media belong to (package install).
const InstallationMarkerKey = installationRoot + "marker.json"

// ProbeKey is the key of a probe object a process writes and deletes at
// start, to learn that it may.
func ProbeKey(name string) string { return installationRoot + "probe-" + name }

// MediaKey is the key of file among project's media.
func MediaKey(project, file string) string { return mediaRoot + project + "/" + file }

// MediaPrefix is the prefix of every object of project's media.
func MediaPrefix(project string) string { return mediaRoot + project + "/" }

// UploadKey is the key of upload's bytes.
func UploadKey(upload string) string { return uploadsRoot + upload + ".bin" }

// UploadsPrefix is the prefix of every upload's objects.
const UploadsPrefix = uploadsRoot

// UploadPartsPrefix is the prefix of every chunk of upload stored while it
// arrives in a bucket (which cannot write at an offset), all sessions.
func UploadPartsPrefix(upload string) string { return uploadsRoot + "parts/" + upload + "/" }

// PublishedKey is the key of file of a post published to the "dir"
// destination; PublishedKey(account, post, "") is the post's prefix
// without its trailing slash, the location a receipt names.
func PublishedKey(account, post, file string) string {
	k := publishedRoot + account + "/" + post
	if file != "" {
		k += "/" + file
	}
	return k
}

// PublishedClipKey is the key of the clip of a post published to the "dir"
// destination, which goes when the clip's project media expire.
func PublishedClipKey(account, post string) string { return PublishedKey(account, post, "clip.mp4") }
