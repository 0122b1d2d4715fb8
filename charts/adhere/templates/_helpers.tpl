{{/* Names, labels, images and the operator's settings file. */}}

{{- define "adhere.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "adhere.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "adhere.selectorLabels" -}}
app.kubernetes.io/name: {{ include "adhere.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "adhere.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "adhere.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: adhere
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "adhere.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "adhere.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* One image: (dict "root" $ "image" .Values.images.operator) → registry/repository:tag */}}
{{- define "adhere.image" -}}
{{- $root := .root }}
{{- $image := .image }}
{{- $ref := printf "%s/%s" $root.Values.images.registry $image.repository }}
{{- if $image.digest }}
{{- printf "%s@%s" $ref $image.digest }}
{{- else }}
{{- printf "%s:%s" $ref (default (default $root.Chart.AppVersion $root.Values.images.tag) $image.tag) }}
{{- end }}
{{- end }}

{{/* The store URI: store.uri, else s3://bucket/prefix when a bucket is given, else empty. */}}
{{- define "adhere.storeUri" -}}
{{- if .Values.store.uri }}
{{- .Values.store.uri }}
{{- else if .Values.store.s3.bucket }}
{{- printf "s3://%s/%s" .Values.store.s3.bucket (.Values.store.s3.prefix | trimAll "/") | trimSuffix "/" }}
{{- end }}
{{- end }}

{{/* Non-empty when the exporter runs: metrics enabled and a store to read. */}}
{{- define "adhere.metricsEnabled" -}}
{{- if and .Values.metrics.enabled (include "adhere.storeUri" .) }}true{{ end }}
{{- end }}

{{/* Environment of store access, shared by the operator and trial pods (name → value). */}}
{{- define "adhere.storeEnv" -}}
{{- $env := dict }}
{{- with .Values.store.s3.endpoint }}{{ $_ := set $env "ADHERE_S3_ENDPOINT_URL" . }}{{ end }}
{{- with .Values.store.s3.region }}{{ $_ := set $env "AWS_REGION" . }}{{ end }}
{{- if ne .Values.store.s3.addressingStyle "auto" }}
{{- $_ := set $env "ADHERE_S3_ADDRESSING_STYLE" .Values.store.s3.addressingStyle }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/* Resources with every quantity as a string (cpu: 1 → "1"), as the operator reads them. */}}
{{- define "adhere.resources" -}}
{{- $out := dict }}
{{- range $section, $quantities := . }}
{{- $strings := dict }}
{{- range $name, $quantity := $quantities }}{{ $_ := set $strings $name (toString $quantity) }}{{ end }}
{{- $_ := set $out $section $strings }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* Scoring mode of the operator from ray.mode. */}}
{{- define "adhere.scoring" -}}
{{- $modes := dict "in-process" "in-process" "address" "ray" "kuberay" "rayjob" }}
{{- get $modes .Values.ray.mode }}
{{- end }}

{{/*
The operator's settings file (adhere.operator.OperatorConfig, camelCase), built from the
values; operator.config is merged on top.
*/}}
{{- define "adhere.operatorConfig" -}}
{{- $images := dict }}
{{- range $name, $image := .Values.images.scaffolds }}
{{- $_ := set $images $name (include "adhere.image" (dict "root" $ "image" $image)) }}
{{- end }}
{{- $tag := default .Chart.AppVersion .Values.images.tag }}
{{- $config := dict
  "scaffoldImage" (printf "%s/scaffold-{scaffold}:%s" .Values.images.registry $tag)
  "scaffoldImages" $images
  "proxyImage" (include "adhere.image" (dict "root" . "image" .Values.images.proxy))
  "rayImage" (include "adhere.image" (dict "root" . "image" .Values.images.rayWorker))
  "imagePullPolicy" .Values.images.pullPolicy
  "imagePullSecrets" (concat .Values.images.pullSecrets .Values.trials.imagePullSecrets | uniq)
  "instanceImages" .Values.trials.instanceImages.enabled
  "instanceImageRunAsRoot" .Values.trials.instanceImages.runAsRoot
  "runAsUser" .Values.trials.runAsUser
  "runAsGroup" .Values.trials.runAsGroup
  "trialResources" (include "adhere.resources" .Values.trials.resources | fromYaml)
  "proxyResources" (include "adhere.resources" .Values.trials.proxyResources | fromYaml)
  "workspaceSizeLimit" .Values.trials.workspaceSizeLimit
  "deadlineSlackSeconds" .Values.trials.deadlineSlackSeconds
  "storeEnv" (include "adhere.storeEnv" . | fromYaml)
  "scoring" (include "adhere.scoring" .)
  "rayWorkers" .Values.ray.workers
  "rayWorkerResources" (include "adhere.resources" .Values.ray.workerResources | fromYaml)
  "verifyActors" .Values.ray.verifyActors
  "judgeActors" .Values.ray.judgeActors
}}
{{- with (include "adhere.storeUri" .) }}{{ $_ := set $config "storeUri" . }}{{ end }}
{{- with .Values.store.s3.credentialsSecret }}{{ $_ := set $config "storeSecret" . }}{{ end }}
{{- with .Values.trialServiceAccount.name }}{{ $_ := set $config "serviceAccount" . }}{{ end }}
{{- if eq .Values.ray.mode "address" }}
{{- $_ := set $config "rayAddress" (required "ray.address is required when ray.mode is address" .Values.ray.address) }}
{{- end }}
{{- toYaml (mergeOverwrite $config (deepCopy .Values.operator.config)) }}
{{- end }}

{{/* Non-empty when trials.networkPolicy.store names a peer by selector (an in-cluster store). */}}
{{- define "adhere.storeSelectorPeer" -}}
{{- range .Values.trials.networkPolicy.store.to }}
{{- if or (hasKey . "namespaceSelector") (hasKey . "podSelector") }}true{{ end }}
{{- end }}
{{- end }}
